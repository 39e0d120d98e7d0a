// The generated API types must match the server's OpenAPI snapshot: run `npm run gen:api`
// after `make snapshots` when this fails.
import { execSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(__dirname, "../..");

describe("src/api/schema.d.ts", () => {
  it("is up to date with the OpenAPI snapshot", () => {
    const dir = mkdtempSync(join(tmpdir(), "antler-schema-"));
    const out = join(dir, "schema.d.ts");
    // The very command of `npm run gen:api`, writing elsewhere.
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> };
    const command = pkg.scripts["gen:api"]?.replace("src/api/schema.d.ts", JSON.stringify(out));
    expect(command).toContain(out);
    let fresh: string;
    try {
      execSync(command ?? "", {
        cwd: root,
        stdio: "pipe",
        env: { ...process.env, PATH: `${join(root, "node_modules/.bin")}${delimiter}${process.env.PATH ?? ""}` },
      });
      fresh = readFileSync(out, "utf8");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const committed = readFileSync(join(root, "src/api/schema.d.ts"), "utf8");
    expect(committed === fresh, "schema.d.ts is stale: run `npm run gen:api` in frontend/").toBe(true);
  }, 30_000);
});
