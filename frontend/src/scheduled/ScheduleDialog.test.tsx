// @vitest-environment jsdom
// Scheduling from a chat: the dialog starts with the message and the chat's agent, previews
// what the schedule field understood (or says why not), and creates the schedule in the
// conversation or with a new conversation each time; the Composer's button opens it.
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Cron } from "../api/crons";
import { Composer } from "../chat/Composer";
import { browserTimezone } from "../lib/schedule";
import { BUILT_IN_ID } from "../test/agents";
import { serveCrons } from "../test/crons";
import { polyfillDialog } from "../test/dialog";
import { ScheduleDialog } from "./ScheduleDialog";

function renderDialog(threadId?: string) {
  const saved = vi.fn<(cron: Cron) => void>();
  render(
    <ScheduleDialog
      open
      threadId={threadId}
      initialMessage="Summarise today's news"
      initialAgent={BUILT_IN_ID}
      onClose={() => undefined}
      onSaved={saved}
    />,
  );
  return { saved, dialog: screen.getByRole("dialog", { name: "Schedule this message" }) };
}

const create = (dialog: HTMLElement) => within(dialog).getByRole("button", { name: "Create schedule" }) as HTMLButtonElement;

beforeAll(polyfillDialog);

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("the schedule dialog", () => {
  it("starts with the message, the browser's timezone and the chat's agent", async () => {
    serveCrons([]);
    const { dialog } = renderDialog();
    expect((within(dialog).getByLabelText("Message") as HTMLTextAreaElement).value).toBe("Summarise today's news");
    expect((within(dialog).getByLabelText("Timezone") as HTMLInputElement).value).toBe(browserTimezone());
    await waitFor(() => expect((within(dialog).getByLabelText("Agent") as HTMLSelectElement).value).toBe(BUILT_IN_ID));
    expect(within(dialog).getByLabelText("Name (optional)").getAttribute("placeholder")).toBe("Summarise today's news");
  });

  it("previews the cron expression, its description and the next three runs as the schedule is typed", () => {
    serveCrons([]);
    const { dialog } = renderDialog();
    fireEvent.change(within(dialog).getByLabelText("Timezone"), { target: { value: "Europe/Paris" } });
    fireEvent.change(within(dialog).getByLabelText("When"), { target: { value: "every weekday at 9:00" } });
    expect(within(dialog).getByTestId("schedule-cron").textContent).toBe("0 9 * * 1-5");
    expect(within(dialog).getByTestId("schedule-description").textContent).toBe("Weekdays at 09:00 (Europe/Paris)");
    const runs = within(within(dialog).getByTestId("schedule-next")).getAllByRole("listitem");
    expect(runs).toHaveLength(3);
    for (const r of runs) {
      // Each run at 09:00 in Paris, which is 07:00 or 08:00 UTC.
      const at = new Date(r.querySelector("time")?.getAttribute("datetime") ?? "");
      expect([7, 8]).toContain(at.getUTCHours());
      expect([1, 2, 3, 4, 5]).toContain(at.getUTCDay());
    }
  });

  it("says clearly when the schedule cannot be understood, and does not create it", () => {
    serveCrons([]);
    const { dialog } = renderDialog();
    const when = within(dialog).getByLabelText("When");
    fireEvent.change(when, { target: { value: "whenever it rains" } });
    expect(within(dialog).getByTestId("schedule-when-error").textContent).toContain('Cannot understand "whenever it rains"');
    expect(when.getAttribute("aria-invalid")).toBe("true");
    expect(create(dialog).disabled).toBe(true);
    fireEvent.change(when, { target: { value: "every day at 8am" } });
    fireEvent.change(within(dialog).getByLabelText("Timezone"), { target: { value: "Mars/Olympus" } });
    expect(within(dialog).getByText(/Not a timezone/)).toBeTruthy();
    expect(create(dialog).disabled).toBe(true);
  });

  it("creates a schedule that starts a new conversation each time and keeps it", async () => {
    const server = serveCrons([]);
    const { dialog, saved } = renderDialog("t1");
    fireEvent.change(within(dialog).getByLabelText("When"), { target: { value: "every day at 8am" } });
    fireEvent.change(within(dialog).getByLabelText("Timezone"), { target: { value: "Europe/Paris" } });
    expect((within(dialog).getByLabelText("A new conversation each time") as HTMLInputElement).checked).toBe(true);
    await waitFor(() => expect(create(dialog).disabled).toBe(false));
    fireEvent.click(create(dialog));
    await waitFor(() => expect(saved).toHaveBeenCalled());
    expect(server.calls.find((c) => c.method === "POST" && c.path === "/api/runs/crons")?.body).toEqual({
      assistant_id: BUILT_IN_ID,
      schedule: "0 8 * * *",
      timezone: "Europe/Paris",
      input: { messages: [{ role: "user", content: "Summarise today's news" }] },
      metadata: {},
      enabled: true,
      on_run_completed: "keep",
    });
  });

  it("creates a schedule whose runs continue this conversation, with its name", async () => {
    const server = serveCrons([]);
    const { dialog, saved } = renderDialog("t1");
    fireEvent.change(within(dialog).getByLabelText("When"), { target: { value: "every 15 minutes" } });
    fireEvent.change(within(dialog).getByLabelText("Name (optional)"), { target: { value: "News" } });
    fireEvent.click(within(dialog).getByLabelText("In this conversation"));
    await waitFor(() => expect(create(dialog).disabled).toBe(false));
    fireEvent.click(create(dialog));
    await waitFor(() => expect(saved).toHaveBeenCalled());
    const call = server.calls.find((c) => c.method === "POST" && c.path === "/api/threads/t1/runs/crons");
    expect(call?.body).toMatchObject({ schedule: "*/15 * * * *", metadata: { name: "News" } });
    expect(call?.body).not.toHaveProperty("on_run_completed");
    expect(saved.mock.calls[0]?.[0].thread_id).toBe("t1");
  });

  it("shows the server's message when it refuses the schedule", async () => {
    const server = serveCrons([]);
    server.failNext("POST", "/api/runs/crons", 422, "timezone: unknown timezone");
    const { dialog, saved } = renderDialog();
    fireEvent.change(within(dialog).getByLabelText("When"), { target: { value: "hourly" } });
    await waitFor(() => expect(create(dialog).disabled).toBe(false));
    fireEvent.click(create(dialog));
    expect((await within(dialog).findByTestId("schedule-error")).textContent).toBe("timezone: unknown timezone");
    expect(saved).not.toHaveBeenCalled();
  });
});

describe("the Composer's Schedule… button", () => {
  it("hands over the text in the message box", () => {
    const onSchedule = vi.fn();
    render(
      <Composer
        streaming={false}
        stopping={false}
        disabled={false}
        attachments={[]}
        uploading={false}
        onSend={() => undefined}
        onStop={() => undefined}
        onFiles={() => undefined}
        onRemoveAttachment={() => undefined}
        onSchedule={onSchedule}
      />,
    );
    fireEvent.change(screen.getByRole("textbox", { name: "Message" }), { target: { value: "Check the build" } });
    fireEvent.click(screen.getByRole("button", { name: "Schedule…" }));
    expect(onSchedule).toHaveBeenCalledWith("Check the build");
  });
});
