// End-to-end test of scheduled runs in the web UI against the real server and the scripted
// model: a schedule made from a chat ("every weekday at 9:00", a new conversation each time)
// is listed on the Scheduled page with its next run; paused, it stays paused after a reload;
// "Run now" starts a run whose conversation the row links to; deleted, it is gone.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SCREENSHOTS, Stack, screenshot, sendMessage, threadIdOf, until } from "./harness.mjs";

const SHOTS = join(SCREENSHOTS, "scheduled");
const stack = new Stack({ screenshots: SHOTS });
// mock.yaml answers messages with this marker by scenario s-scheduled.
const MESSAGE = "s-scheduled: summarise the build status";
const NAME = "Build status";

/** The caller's schedules, as the API answers them. */
const crons = () => stack.api("POST", "/api/runs/crons/search", { limit: 100 });

describe("scheduled runs", { concurrency: false }, () => {
  before(async () => {
    await stack.start();
    console.log(`# server ${stack.baseUrl}, model ${stack.mockUrl}`);
  }, { timeout: 180_000 });

  after(async () => {
    await stack.stop();
  }, { timeout: 120_000 });

  it("s. a schedule made from a chat is listed with its next run, pauses (after a reload too), runs now and is deleted", { timeout: 180_000 }, async () => {
    const s = await stack.page();
    try {
      const { page } = s;
      await page.goto("/");
      await page.getByTestId("model-label").waitFor();
      await sendMessage(page, MESSAGE);
      const chatThread = threadIdOf(page);
      await until(async () => (await stack.runsOf(chatThread))[0]?.status === "success", { timeout: 60_000, message: "the chat's run" });

      // Schedule… opens the dialog with the last message sent; the preview reads the English.
      await page.getByRole("button", { name: "Schedule…" }).click();
      const dialog = page.getByRole("dialog", { name: "Schedule this message" });
      await dialog.waitFor();
      assert.equal(await dialog.getByLabel("Message").inputValue(), MESSAGE);
      await dialog.getByLabel("When").fill("every weekday at 9:00");
      assert.equal(await dialog.getByTestId("schedule-cron").textContent(), "0 9 * * 1-5");
      assert.equal(await dialog.getByTestId("schedule-next").getByRole("listitem").count(), 3);
      await dialog.getByLabel("Timezone").fill("Europe/Paris");
      assert.equal(await dialog.getByTestId("schedule-description").textContent(), "Weekdays at 09:00 (Europe/Paris)");
      // Unclear text says so, in place.
      await dialog.getByLabel("When").fill("whenever it rains");
      await dialog.getByTestId("schedule-when-error").waitFor();
      assert.equal(await dialog.getByRole("button", { name: "Create schedule" }).isDisabled(), true);
      await dialog.getByLabel("When").fill("every weekday at 9:00");
      await dialog.getByLabel("Name (optional)").fill(NAME);
      assert.equal(await dialog.getByLabel("A new conversation each time").isChecked(), true);
      await screenshot(page, "s-dialog", SHOTS);
      await dialog.getByRole("button", { name: "Create schedule" }).click();
      const toast = page.getByTestId("toast").filter({ hasText: "Scheduled: Weekdays at 09:00 (Europe/Paris)" });
      // The toast, or the server's refusal in the dialog (reported as the failure).
      await until(
        async () => {
          const refused = dialog.getByTestId("schedule-error");
          if (await refused.isVisible()) throw new Error(`refused: ${await refused.textContent()}`);
          return toast.isVisible();
        },
        { message: "the schedule to be created" },
      );

      const [made] = await crons();
      assert.equal(made.schedule, "0 9 * * 1-5");
      assert.equal(made.timezone, "Europe/Paris");
      assert.equal(made.thread_id, null);
      assert.equal(made.on_run_completed, "keep");
      assert.equal(made.enabled, true);
      assert.ok(made.next_run_date, "an active schedule has a next run");

      // The Scheduled page (from the main navigation) lists it with its next run.
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Scheduled" }).click();
      const row = page.getByRole("listitem", { name: NAME });
      await row.waitFor();
      assert.equal(await row.getByTestId("cron-schedule").textContent(), "Weekdays at 09:00 (Europe/Paris)");
      const next = await row.getByTestId("cron-next").textContent();
      assert.match(next, /\(in \d+ (min|h|days)\)$/, next);
      assert.equal(await row.getByRole("time").getAttribute("datetime"), made.next_run_date);
      await screenshot(page, "s-list", SHOTS);
      await page.setViewportSize({ width: 390, height: 844 });
      await screenshot(page, "s-list-phone", SHOTS);
      await page.setViewportSize({ width: 1280, height: 860 });

      // Pause: shown at once, kept after a reload, and so stored.
      await row.getByRole("switch", { name: `Active: ${NAME}` }).click();
      await until(async () => (await row.getAttribute("data-enabled")) === "false", { message: "the row to be paused" });
      await page.reload();
      await row.waitFor();
      assert.equal(await row.getAttribute("data-enabled"), "false");
      assert.equal(await row.getByTestId("cron-next").textContent(), "Paused");
      assert.equal(await row.getByRole("switch", { name: `Active: ${NAME}` }).getAttribute("aria-checked"), "false");
      assert.equal((await crons())[0].enabled, false);
      await screenshot(page, "s-paused", SHOTS);

      // Run now: a run starts in a new conversation the row links to; it answers.
      await row.getByRole("button", { name: `Run now: ${NAME}` }).click();
      const link = row.getByTestId("cron-run-link");
      await link.waitFor();
      const href = await link.getAttribute("href");
      const runThread = decodeURIComponent(href.replace(/^\/threads\//, ""));
      assert.notEqual(runThread, chatThread);
      await until(async () => (await stack.runsOf(runThread))[0]?.status === "success", { timeout: 60_000, message: "the scheduled run" });
      await link.click();
      await page.waitForURL(`**/threads/${runThread}`);
      await page.getByTestId("assistant-text").filter({ hasText: "S-SCHEDULED-DONE" }).waitFor();
      // Run now does not move the next run, and the schedule stays paused.
      const after = (await crons())[0];
      assert.equal(after.enabled, false);
      assert.equal(after.last_run?.thread_id, runThread);

      // The row's last result links to that conversation; delete, after confirming.
      await page.goBack();
      await row.waitFor();
      await until(async () => (await row.getByTestId("cron-last-run").getAttribute("href")) === href, {
        message: "the last result to link to the run",
      });
      await row.getByRole("button", { name: `Delete: ${NAME}` }).click();
      const confirm = page.getByRole("alertdialog", { name: "Delete schedule?" });
      await confirm.getByRole("button", { name: "Delete" }).click();
      await row.waitFor({ state: "detached" });
      await page.reload();
      await page.getByText("No schedules yet").waitFor();
      assert.deepEqual(await crons(), []);
      await screenshot(page, "s-empty", SHOTS);
      s.assertNoErrors();
    } finally {
      await s.close();
    }
  });

  it("t. a schedule made to run in this conversation runs there, and its row links to it", { timeout: 180_000 }, async () => {
    const s = await stack.page({ colorScheme: "dark" });
    try {
      const { page } = s;
      await page.goto("/");
      await page.getByTestId("model-label").waitFor();
      await sendMessage(page, "t-first message of this conversation");
      const thread = threadIdOf(page);
      await until(async () => (await stack.runsOf(thread))[0]?.status === "success", { timeout: 60_000, message: "the chat's run" });

      // The text in the message box is what the dialog starts with.
      await page.getByRole("textbox", { name: "Message" }).fill(`${MESSAGE} here`);
      await page.getByRole("button", { name: "Schedule…" }).click();
      const dialog = page.getByRole("dialog", { name: "Schedule this message" });
      assert.equal(await dialog.getByLabel("Message").inputValue(), `${MESSAGE} here`);
      await dialog.getByLabel("When").fill("every 15 minutes");
      assert.equal(await dialog.getByTestId("schedule-description").textContent(), `Every 15 minutes (${await dialog.getByLabel("Timezone").inputValue()})`);
      await dialog.getByLabel("In this conversation").check();
      await screenshot(page, "t-dialog-dark", SHOTS);
      await dialog.getByRole("button", { name: "Create schedule" }).click();
      await page.getByTestId("toast").filter({ hasText: "Scheduled: Every 15 minutes" }).getByRole("link", { name: "Open Scheduled" }).click();

      const [made] = await crons();
      assert.equal(made.thread_id, thread);
      assert.equal(made.schedule, "*/15 * * * *");
      // Without a name: the first words of its message (six here, all of them).
      const row = page.getByRole("listitem", { name: `${MESSAGE} here` });
      await row.waitFor();
      assert.equal(await row.getByRole("link", { name: "its conversation" }).getAttribute("href"), `/threads/${thread}`);

      // Run now: the run goes to this conversation.
      await row.getByRole("button", { name: /^Run now: / }).click();
      const link = row.getByTestId("cron-run-link");
      await link.waitFor();
      assert.equal(await link.getAttribute("href"), `/threads/${thread}`);
      await until(async () => {
        const runs = await stack.runsOf(thread);
        return runs.length === 2 && runs.every((r) => r.status === "success");
      }, { timeout: 60_000, message: "the scheduled run in the conversation" });
      await link.click();
      await page.getByTestId("assistant-text").filter({ hasText: "S-SCHEDULED-DONE" }).waitFor();
      await screenshot(page, "t-thread-dark", SHOTS);
      // At phone width the composer's Schedule… button is its icon and nothing scrolls sideways.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.reload();
      await page.getByTestId("assistant-text").filter({ hasText: "S-SCHEDULED-DONE" }).waitFor();
      await page.getByRole("button", { name: "Schedule…" }).waitFor();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `no horizontal scrolling (${overflow}px)`);
      await screenshot(page, "t-thread-phone-dark", SHOTS);
      await stack.api("DELETE", `/api/runs/crons/${made.cron_id}`, undefined, 204);
      s.assertNoErrors();
    } finally {
      await s.close();
    }
  });
});
