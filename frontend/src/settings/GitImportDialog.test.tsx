// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { ImportCandidate, ImportResult } from "../api/types";
import { requestOf } from "../test/fetch";
import { GitImportDialog } from "./GitImportDialog";
import { polyfillDialog } from "../test/dialog";

const candidate = (name: string, path: string, extra: Partial<ImportCandidate> = {}): ImportCandidate => ({
  name,
  path,
  description: `${name} does things`,
  installable: true,
  findings: [],
  warnings: [],
  exists: false,
  selected: false,
  ...extra,
});

const preview: ImportResult = {
  url: "https://example.com/org/skills.git",
  commit: "0123456789abcdef0123456789abcdef01234567",
  skills: [
    candidate("alpha", "skills/alpha"),
    candidate("linky", "skills/linky", {
      installable: false,
      findings: [{ rule: "symlink", path: "skills/linky/passwd", message: "symbolic links are not allowed in skills" }],
    }),
    candidate("notes", "skills/notes", { exists: true }),
  ],
  hidden_skipped: [".curated"],
  truncated: false,
  installed: [],
};

beforeAll(polyfillDialog);

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("Add from Git", () => {
  it("previews, shows why a skill is refused, and installs the chosen ones at the previewed commit", async () => {
    const bodies: unknown[] = [];
    const fetchMock = vi.fn(async (input: RequestInfo, init?: RequestInit) => {
      const body = await requestOf(input, init).json();
      bodies.push(body);
      const installing = Array.isArray(body.skills) && body.skills.length > 0;
      return new Response(JSON.stringify(installing ? { ...preview, installed: [] } : preview), { status: 200 });
    });
    vi.stubGlobal("fetch", fetchMock);
    const onImported = vi.fn();
    render(<GitImportDialog open onClose={() => {}} onImported={onImported} />);
    fireEvent.change(screen.getByTestId("import-url"), { target: { value: " https://example.com/org/skills.git " } });
    fireEvent.change(screen.getByTestId("import-ref"), { target: { value: "main" } });
    await act(async () => {
      fireEvent.click(screen.getByTestId("import-preview"));
    });
    expect(bodies[0]).toEqual({ url: "https://example.com/org/skills.git", ref: "main", include_hidden: false });
    expect(await screen.findAllByTestId("import-candidate")).toHaveLength(3);
    expect(screen.getByText(/not searched: \.curated/)).toBeTruthy();
    // Installable and new: chosen; refused: cannot be chosen; installed: left out until asked.
    expect((screen.getByLabelText("Install alpha") as HTMLInputElement).checked).toBe(true);
    const linky = screen.getByLabelText("Install linky") as HTMLInputElement;
    expect(linky.disabled).toBe(true);
    expect(screen.getByText("skills/linky/passwd")).toBeTruthy();
    expect((screen.getByLabelText("Install notes") as HTMLInputElement).checked).toBe(false);

    // Choosing an installed one asks for replacement before installing.
    fireEvent.click(screen.getByLabelText("Install notes"));
    const confirm = screen.getByTestId("confirm-import") as HTMLButtonElement;
    expect(confirm.textContent).toBe("Install 2 skills");
    expect(confirm.disabled).toBe(true);
    fireEvent.click(screen.getByTestId("import-overwrite").querySelector("input") as HTMLInputElement);
    expect(confirm.disabled).toBe(false);
    await act(async () => {
      fireEvent.click(confirm);
    });
    expect(bodies[1]).toEqual({
      url: "https://example.com/org/skills.git",
      ref: preview.commit,
      include_hidden: false,
      skills: ["skills/alpha", "skills/notes"],
      overwrite: true,
    });
    expect(onImported).toHaveBeenCalledTimes(1);
  });

  it("says why a repository could not be fetched", async () => {
    vi.stubGlobal(
      "fetch",
      vi.fn(
        async () =>
          new Response(
            JSON.stringify({ error: { code: "fetch_failed", message: "fetching the repository failed: not found" } }),
            { status: 422 },
          ),
      ),
    );
    render(<GitImportDialog open onClose={() => {}} onImported={() => {}} />);
    fireEvent.change(screen.getByTestId("import-url"), { target: { value: "https://example.com/none.git" } });
    await act(async () => {
      fireEvent.click(screen.getByTestId("import-preview"));
    });
    expect((await screen.findByTestId("import-failed")).textContent).toContain("not found");
    expect((screen.getByTestId("confirm-import") as HTMLButtonElement).disabled).toBe(true);
  });
});
