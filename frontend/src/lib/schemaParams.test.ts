import { describe, expect, it } from "vitest";
import { schemaParams, typeLabel } from "./schemaParams";

describe("tool argument schemas", () => {
  it("list the arguments, required first, with their descriptions", () => {
    const schema = {
      type: "object",
      properties: { b: { type: "number" }, a: { type: "string", description: "The a" } },
      required: ["a", 3],
    };
    expect(schemaParams(schema)).toEqual([
      { name: "a", type: "string", required: true, description: "The a" },
      { name: "b", type: "number", required: false, description: "" },
    ]);
    expect(schemaParams({ type: "object" })).toEqual([]);
    expect(schemaParams(null)).toEqual([]);
  });

  it("name types briefly, whatever form the schema takes", () => {
    expect(typeLabel({ type: ["string", "null"] })).toBe("string | null");
    expect(typeLabel({ type: "array", items: { type: "integer" } })).toBe("integer[]");
    expect(typeLabel({ enum: ["a", "b"] })).toBe('"a" | "b"');
    expect(typeLabel({ enum: [1, 2, 3, 4, 5, 6, 7] })).toBe("1 | 2 | 3 | 4 | 5 | 6 | …");
    expect(typeLabel({ anyOf: [{ type: "string" }, { type: "null" }] })).toBe("string | null");
    expect(typeLabel({ $ref: "#/$defs/Point" })).toBe("Point");
    expect(typeLabel({ properties: {} })).toBe("object");
    expect(typeLabel({})).toBe("any");
    expect(typeLabel("nonsense")).toBe("any");
  });
});
