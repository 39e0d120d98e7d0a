// @vitest-environment jsdom
// Settings → Account: the person's switch for follow-up suggestions, kept on the server.
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { json } from "../test/agents";
import { methodOf, pathOf, requestOf } from "../test/fetch";
import { SuggestionsSetting } from "./SuggestionsSetting";

function serve(prefs: { suggestions: boolean; suggestions_available: boolean }) {
  const sent: unknown[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      if (pathOf(input) !== "/api/preferences") return json({ error: { code: "not_found", message: "" } }, 404);
      if (methodOf(input, init) === "PATCH") {
        const body = (await requestOf(input, init).json()) as { suggestions: boolean };
        sent.push(body);
        prefs = { ...prefs, suggestions: body.suggestions };
      }
      return json(prefs);
    }),
  );
  return sent;
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("the follow-up suggestions setting", () => {
  it("shows the stored choice and saves a change", async () => {
    const sent = serve({ suggestions: true, suggestions_available: true });
    render(<SuggestionsSetting />);
    const toggle = await screen.findByRole("switch", { name: "Suggest follow-ups after answers" });
    expect(toggle.getAttribute("aria-checked")).toBe("true");
    fireEvent.click(toggle);
    await waitFor(() => expect(toggle.getAttribute("aria-checked")).toBe("false"));
    expect(sent).toEqual([{ suggestions: false }]);
    expect(screen.getByText("Off: no follow-ups are suggested.")).toBeTruthy();
  });

  it("says when the server has them off", async () => {
    serve({ suggestions: true, suggestions_available: false });
    render(<SuggestionsSetting />);
    const toggle = await screen.findByRole("switch", { name: "Suggest follow-ups after answers" });
    expect((toggle as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText("Follow-up suggestions are turned off on this server.")).toBeTruthy();
  });
});
