// The parameters of a tool's JSON Schema as rows people can read (MCP servers describe their
// tools' arguments this way). Schemas come from third-party servers, so every field is
// read defensively.

/** One argument of a tool. */
export interface SchemaParam {
  name: string;
  /** A short type: `string`, `integer | null`, `string[]`, `"a" | "b"`. */
  type: string;
  required: boolean;
  description: string;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => !!v && typeof v === "object" && !Array.isArray(v);

/** Most enum values spelled out before the rest is summarised. */
const MAX_ENUM = 6;

/** A short type label for a property schema. */
export function typeLabel(schema: unknown, depth = 0): string {
  if (!isObject(schema) || depth > 3) return "any";
  if ("const" in schema) return JSON.stringify(schema["const"]);
  const values = schema["enum"];
  if (Array.isArray(values) && values.length > 0) {
    const shown = values.slice(0, MAX_ENUM).map((v) => JSON.stringify(v));
    return values.length > MAX_ENUM ? `${shown.join(" | ")} | …` : shown.join(" | ");
  }
  const type = schema["type"];
  if (typeof type === "string") {
    return type === "array" && isObject(schema["items"]) ? `${typeLabel(schema["items"], depth + 1)}[]` : type;
  }
  if (Array.isArray(type)) return type.filter((t) => typeof t === "string").join(" | ") || "any";
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) {
      return options.map((o) => typeLabel(o, depth + 1)).join(" | ");
    }
  }
  const ref = schema["$ref"];
  if (typeof ref === "string") return ref.split("/").pop() || "any";
  return isObject(schema["properties"]) ? "object" : "any";
}

/** The top-level arguments of `schema`, required ones first, each group in schema order. */
export function schemaParams(schema: unknown): SchemaParam[] {
  if (!isObject(schema) || !isObject(schema["properties"])) return [];
  const required = new Set(
    Array.isArray(schema["required"]) ? schema["required"].filter((r): r is string => typeof r === "string") : [],
  );
  const rows = Object.entries(schema["properties"]).map(([name, prop]) => ({
    name,
    type: typeLabel(prop),
    required: required.has(name),
    description: isObject(prop) && typeof prop["description"] === "string" ? prop["description"] : "",
  }));
  return [...rows.filter((r) => r.required), ...rows.filter((r) => !r.required)];
}
