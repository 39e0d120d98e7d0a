import { describe, expect, it } from "vitest";
import { detectDelimiter, parseCsv } from "./csv";

describe("parseCsv", () => {
  it("parses plain rows with CRLF and a trailing newline", () => {
    expect(parseCsv("a,b\r\n1,2\r\n").rows).toEqual([
      ["a", "b"],
      ["1", "2"],
    ]);
  });

  it("handles quotes, doubled quotes, delimiters and newlines inside quotes", () => {
    const text = 'name,note\n"Smith, J","said ""hi""\nthen left"\n,empty first\n';
    expect(parseCsv(text).rows).toEqual([
      ["name", "note"],
      ["Smith, J", 'said "hi"\nthen left'],
      ["", "empty first"],
    ]);
  });

  it("keeps empty trailing fields and strips a BOM", () => {
    expect(parseCsv("\uFEFFa,b,\n1,,").rows).toEqual([
      ["a", "b", ""],
      ["1", "", ""],
    ]);
  });

  it("stops at maxRows and says so", () => {
    const text = Array.from({ length: 10 }, (_, i) => `${i}`).join("\n");
    const r = parseCsv(text, ",", 3);
    expect(r.rows).toHaveLength(3);
    expect(r.truncated).toBe(true);
    expect(parseCsv("1\n2", ",", 3).truncated).toBe(false);
  });

  it("detects tab, semicolon and comma delimiters", () => {
    expect(detectDelimiter("a\tb\tc\n1\t2\t3")).toBe("\t");
    expect(detectDelimiter("a;b;c")).toBe(";");
    expect(detectDelimiter("single")).toBe(",");
    expect(detectDelimiter("a,b", "x.tsv")).toBe("\t");
    expect(parseCsv("a;b\n1;2", ";").rows[1]).toEqual(["1", "2"]);
  });
});
