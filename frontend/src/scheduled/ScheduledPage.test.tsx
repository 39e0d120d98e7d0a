// @vitest-environment jsdom
// The Scheduled page: each schedule with its name, when it runs, its next run and last
// result; pause and resume, run now, edit and delete; the empty state and the server's errors.
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { MemoryRouter } from "react-router-dom";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ToastProvider } from "../components/Toasts";
import { assistantsStore } from "../state/assistants";
import { agent, builtIn } from "../test/agents";
import { cron, serveCrons } from "../test/crons";
import { polyfillDialog } from "../test/dialog";
import { ScheduledPage } from "./ScheduledPage";

function renderPage() {
  render(
    <MemoryRouter initialEntries={["/scheduled"]}>
      <ToastProvider>
        <ScheduledPage />
      </ToastProvider>
    </MemoryRouter>,
  );
}

const rows = () => screen.getAllByTestId("cron-row");
const row = (name: string) => screen.getByRole("listitem", { name });

beforeAll(polyfillDialog);

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("the Scheduled page", () => {
  it("lists each schedule with its name, when it runs, its next run, its last result and why the server paused it", async () => {
    serveCrons([
      cron("a", { metadata: { name: "Morning news" } }),
      cron("b", {
        schedule: "*/15 * * * *",
        timezone: "UTC",
        enabled: false,
        next_run_date: null,
        metadata: { disabled_reason: "its agent was deleted" },
        last_run: { run_id: "r1", thread_id: "t-last", status: "success", created_at: "2026-03-01T09:00:00Z" },
      }),
    ]);
    renderPage();
    await waitFor(() => expect(rows()).toHaveLength(2));
    const named = row("Morning news");
    expect(within(named).getByTestId("cron-schedule").textContent).toBe("Weekdays at 09:00 (Europe/Paris)");
    expect(within(named).getByTestId("cron-next").textContent).toMatch(/\(in 3 h\)$/);
    expect(within(named).getByText("Not run yet")).toBeTruthy();
    expect(named.getAttribute("data-enabled")).toBe("true");
    // Without a name: the first words of its message; paused, with no next run.
    const unnamed = row("Summarise the news for b please,…");
    expect(within(unnamed).getByTestId("cron-schedule").textContent).toBe("Every 15 minutes (UTC)");
    expect(within(unnamed).getByTestId("cron-next").textContent).toBe("Paused");
    expect(within(unnamed).getByTestId("cron-disabled-reason").textContent).toBe("Paused by the server: its agent was deleted");
    const last = within(unnamed).getByTestId("cron-last-run");
    expect(last.getAttribute("href")).toBe("/threads/t-last");
    expect(within(last).getByText("success").className).toContain("badge-ok");
    // Active schedules come first.
    expect(within(rows()[0] as HTMLElement).getByTestId("cron-name").textContent).toBe("Morning news");
  });

  it("pauses and resumes a schedule", async () => {
    const server = serveCrons([cron("a", { metadata: { name: "Morning news" } })]);
    renderPage();
    const toggle = await screen.findByRole("switch", { name: "Active: Morning news" });
    expect(toggle.getAttribute("aria-checked")).toBe("true");
    fireEvent.click(toggle);
    await waitFor(() => expect(row("Morning news").getAttribute("data-enabled")).toBe("false"));
    expect(within(row("Morning news")).getByTestId("cron-next").textContent).toBe("Paused");
    expect(server.calls.find((c) => c.method === "PATCH")).toEqual({
      method: "PATCH",
      path: "/api/runs/crons/a",
      body: { enabled: false },
    });
    fireEvent.click(screen.getByRole("switch", { name: "Active: Morning news" }));
    await waitFor(() => expect(row("Morning news").getAttribute("data-enabled")).toBe("true"));
    expect(server.crons()[0]?.enabled).toBe(true);
  });

  it("runs a schedule now and links to the run's conversation", async () => {
    const server = serveCrons([cron("a", { metadata: { name: "Morning news" } })]);
    renderPage();
    fireEvent.click(await screen.findByRole("button", { name: "Run now: Morning news" }));
    const link = await screen.findByTestId("cron-run-link");
    expect(link.getAttribute("href")).toBe("/threads/thread-of-run");
    expect(server.calls.some((c) => c.method === "POST" && c.path === "/api/runs/crons/a/run")).toBe(true);
    // The run is the last result now.
    expect(within(row("Morning news")).getByTestId("cron-last-run").textContent).toContain("pending");
  });

  it("deletes a schedule after confirming", async () => {
    const server = serveCrons([cron("a", { metadata: { name: "Morning news" } }), cron("b")]);
    renderPage();
    fireEvent.click(await screen.findByRole("button", { name: "Delete: Morning news" }));
    const dialog = screen.getByRole("alertdialog");
    expect(dialog.textContent).toContain("Morning news");
    fireEvent.click(within(dialog).getByRole("button", { name: "Delete" }));
    await waitFor(() => expect(rows()).toHaveLength(1));
    expect(server.calls.some((c) => c.method === "DELETE" && c.path === "/api/runs/crons/a")).toBe(true);
  });

  it("edits a schedule, sending only what changed", async () => {
    const server = serveCrons([cron("a", { metadata: { name: "Morning news", team: "x" } })]);
    renderPage();
    fireEvent.click(await screen.findByRole("button", { name: "Edit: Morning news" }));
    const dialog = screen.getByRole("dialog", { name: "Edit schedule" });
    const when = within(dialog).getByLabelText("When") as HTMLInputElement;
    expect(when.value).toBe("0 9 * * 1-5");
    fireEvent.change(when, { target: { value: "every monday at 10:30" } });
    expect(within(dialog).getByTestId("schedule-cron").textContent).toBe("30 10 * * 1");
    fireEvent.change(within(dialog).getByLabelText("Name (optional)"), { target: { value: "Weekly news" } });
    fireEvent.click(within(dialog).getByRole("button", { name: "Save changes" }));
    await waitFor(() => expect(screen.getByRole("listitem", { name: "Weekly news" })).toBeTruthy());
    expect(server.calls.find((c) => c.method === "PATCH")?.body).toEqual({
      schedule: "30 10 * * 1",
      metadata: { name: "Weekly news", team: "x" },
    });
    expect(within(row("Weekly news")).getByTestId("cron-schedule").textContent).toBe("Mondays at 10:30 (Europe/Paris)");
  });

  it("replaces a schedule when another agent is chosen, since a schedule's agent cannot change", async () => {
    const server = serveCrons([cron("a", { metadata: { name: "Morning news" }, enabled: false })]);
    assistantsStore.update({ list: [builtIn, agent("reporter", "Reporter")], loading: false });
    renderPage();
    fireEvent.click(await screen.findByRole("button", { name: "Edit: Morning news" }));
    const dialog = screen.getByRole("dialog", { name: "Edit schedule" });
    fireEvent.change(within(dialog).getByLabelText("Agent"), { target: { value: "reporter" } });
    expect(within(dialog).getByText(/replaces this schedule/)).toBeTruthy();
    fireEvent.click(within(dialog).getByRole("button", { name: "Save changes" }));
    await waitFor(() => expect(server.crons().map((c) => c.cron_id)).toEqual(["new-1"]));
    const created = server.calls.find((c) => c.method === "POST" && c.path === "/api/runs/crons");
    // Same schedule, message and name, still paused; the old one is deleted.
    expect(created?.body).toMatchObject({
      assistant_id: "reporter",
      schedule: "0 9 * * 1-5",
      timezone: "Europe/Paris",
      metadata: { name: "Morning news" },
      enabled: false,
    });
    expect(server.calls.some((c) => c.method === "DELETE" && c.path === "/api/runs/crons/a")).toBe(true);
    await waitFor(() => expect(rows()).toHaveLength(1));
  });

  it("creates a schedule from the page, with a new conversation each time", async () => {
    const server = serveCrons([]);
    renderPage();
    fireEvent.click(await screen.findByRole("button", { name: "New schedule" }));
    const dialog = screen.getByRole("dialog", { name: "New schedule" });
    expect(within(dialog).queryByRole("group", { name: "Where each run goes" })).toBeNull();
    fireEvent.change(within(dialog).getByLabelText("Message"), { target: { value: "Check the weather" } });
    fireEvent.change(within(dialog).getByLabelText("When"), { target: { value: "every day at 7am" } });
    fireEvent.change(within(dialog).getByLabelText("Timezone"), { target: { value: "UTC" } });
    const create = within(dialog).getByRole("button", { name: "Create schedule" }) as HTMLButtonElement;
    await waitFor(() => expect(create.disabled).toBe(false));
    fireEvent.click(create);
    const made = await screen.findByRole("listitem", { name: "Check the weather" });
    expect(within(made).getByTestId("cron-schedule").textContent).toBe("Every day at 07:00 (UTC)");
    expect(server.calls.find((c) => c.path === "/api/runs/crons")?.body).toMatchObject({ on_run_completed: "keep" });
  });

  it("explains how to make a schedule when there is none", async () => {
    serveCrons([]);
    renderPage();
    expect((await screen.findByText("No schedules yet")).parentElement?.textContent).toContain("Schedule…");
  });

  it("shows the server's message when the list cannot be loaded, and when an action fails", async () => {
    const server = serveCrons([cron("a", { metadata: { name: "Morning news" } })]);
    server.failNext("POST", "/api/runs/crons/search", 500, "The database is unavailable.");
    renderPage();
    expect((await screen.findByText("The database is unavailable.")).closest("[role=alert]")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Retry" }));
    await waitFor(() => expect(rows()).toHaveLength(1));
    server.failNext("PATCH", "/api/runs/crons/a", 422, "schedule: the assistant was deleted");
    fireEvent.click(screen.getByRole("switch", { name: "Active: Morning news" }));
    expect((await screen.findByTestId("cron-error")).textContent).toBe("schedule: the assistant was deleted");
    expect(row("Morning news").getAttribute("data-enabled")).toBe("true");
  });
});
