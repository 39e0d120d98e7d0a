// @vitest-environment jsdom
// Feedback in the runs console: a thumb per rating in the list (comments in its tooltip), each
// rating with who gave it and its comment in the run's detail, the rating filter kept in the
// URL and sent to the API, and the export link bounded by the days shown.
import { cleanup, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { consoleRun } from "./fixtures";
import { NO_FILTERS, filtersFromSearch, queryOfFilters, searchOfFilters } from "./filters";
import { FeedbackCell, FeedbackSection, exportHref } from "./RunFeedback";
import type { ConsoleRun } from "./types";

type Feedback = NonNullable<ConsoleRun["feedback"]>[number];

const rated = (user: string, rating: Feedback["rating"], comment: string | null = null): Feedback => ({
  user_id: user,
  user_email: `${user}@example.com`,
  rating,
  comment,
  created_at: "2026-03-01T11:00:00.000Z",
  updated_at: "2026-03-01T11:00:00.000Z",
});

afterEach(cleanup);

describe("feedback in the runs console", () => {
  it("shows a thumb per rating in the list, and nothing for a run nobody rated", () => {
    const run = consoleRun("r1", { feedback: [rated("ada", "down", "Too long"), rated("bob", "up"), rated("cy", "up")] });
    render(<FeedbackCell run={run} />);
    const cell = screen.getByTestId("run-feedback");
    expect(within(cell).getByRole("img", { name: "Rated bad" }).textContent).toBe("");
    expect(within(cell).getByRole("img", { name: "Rated good" }).textContent).toBe("2");
    expect(cell.getAttribute("title")).toBe("ada@example.com: Too long");
    cleanup();
    render(<FeedbackCell run={consoleRun("r2")} />);
    expect(screen.queryByTestId("run-feedback")).toBeNull();
  });

  it("lists each rating with who gave it and the comment in the detail", () => {
    render(<FeedbackSection run={consoleRun("r1", { feedback: [rated("ada", "down", "Too long"), rated("bob", "up")] })} />);
    const items = screen.getAllByTestId("detail-feedback-item");
    expect(items.map((i) => i.textContent)).toEqual([
      expect.stringContaining("Rated bad ada@example.com"),
      expect.stringContaining("Rated good bob@example.com"),
    ]);
    expect(items[0]?.textContent).toContain("Too long");
    expect(items[1]?.textContent).toContain("No comment.");
    cleanup();
    render(<FeedbackSection run={consoleRun("r2")} />);
    expect(screen.getByText("Nobody rated this answer.")).toBeTruthy();
  });

  it("keeps the rating filter in the URL and sends it to the API", () => {
    const filters = filtersFromSearch(new URLSearchParams("feedback=down&status=error"));
    expect(filters.feedback).toBe("down");
    expect(searchOfFilters(filters).toString()).toBe("status=error&feedback=down");
    expect(queryOfFilters(filters)).toEqual({ status: "error", feedback: "down" });
    expect(filtersFromSearch(new URLSearchParams("feedback=meh")).feedback).toBe("");
  });

  it("bounds the export by the days shown", () => {
    expect(exportHref(NO_FILTERS)).toBe("/api/admin/feedback/export");
    const href = exportHref({ ...NO_FILTERS, from: "2026-03-01", to: "2026-03-02", feedback: "up" });
    const url = new URL(href, "http://localhost");
    expect(url.pathname).toBe("/api/admin/feedback/export");
    expect(url.searchParams.get("since")).toBe(new Date(2026, 2, 1).toISOString());
    expect(url.searchParams.get("until")).toBe(new Date(2026, 2, 3).toISOString());
    expect([...url.searchParams.keys()]).toEqual(["since", "until"]);
  });
});
