// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { Todo } from "../lib/todos";
import { PlanChecklist } from "./PlanChecklist";

afterEach(cleanup);

const plan: Todo[] = [
  { content: "Read the data", status: "completed" },
  { content: "Write the report", status: "in_progress" },
  { content: "Check the numbers", status: "pending" },
];

describe("PlanChecklist", () => {
  it("titles the plan with how much is done and marks each item by its status", () => {
    render(<PlanChecklist todos={plan} threadId="t-plan" active={false} />);
    const section = screen.getByRole("region", { name: "Plan" });
    expect(within(section).getByTestId("plan-progress").textContent).toBe("1 of 3 done");
    const list = within(section).getByRole("list", { name: "Plan, 1 of 3 done" });
    const items = within(list).getAllByRole("listitem");
    expect(items.map((i) => i.textContent)).toEqual(["✓Read the data", "◐Write the report", "○Check the numbers"]);
    expect(items.map((i) => i.getAttribute("data-status"))).toEqual(["completed", "in_progress", "pending"]);
    // Screen readers hear each status; the step being worked on is the current one.
    expect(items.map((i) => within(i).getByRole("img").getAttribute("aria-label"))).toEqual([
      "done",
      "in progress",
      "pending",
    ]);
    expect(items.map((i) => i.getAttribute("aria-current"))).toEqual([null, "step", null]);
    expect(items[0]?.className).toContain("plan-completed");
    expect(items[1]?.className).toContain("plan-in_progress");
  });

  it("spins the step in progress while a run is going", () => {
    render(<PlanChecklist todos={plan} threadId="t-spin" active />);
    const current = screen.getAllByRole("listitem")[1] as HTMLElement;
    expect(current.querySelector(".spinner")).not.toBeNull();
    expect(within(current).getByRole("img", { name: "in progress" })).toBeTruthy();
    expect(current.textContent).toBe("Write the report");
  });

  it("folds to its title line, and stays folded for that conversation", () => {
    const { unmount } = render(<PlanChecklist todos={plan} threadId="t-fold" active={false} />);
    const head = screen.getByRole("button", { name: /Plan/ });
    expect(head.getAttribute("aria-expanded")).toBe("true");
    fireEvent.click(head);
    expect(head.getAttribute("aria-expanded")).toBe("false");
    expect(screen.queryByRole("list")).toBeNull();
    expect(screen.getByTestId("plan-progress").textContent).toBe("1 of 3 done");
    unmount();
    render(<PlanChecklist todos={plan} threadId="t-fold" active={false} />);
    expect(screen.getByRole("button", { name: /Plan/ }).getAttribute("aria-expanded")).toBe("false");
    cleanup();
    render(<PlanChecklist todos={plan} threadId="t-other" active={false} />);
    expect(screen.getByRole("button", { name: /Plan/ }).getAttribute("aria-expanded")).toBe("true");
  });
});
