// End-to-end tests of the deeper agent against the real server, the Docker sandbox and the
// scripted model: subagents as cards that stream their own work and can be opened (w), and a
// long conversation whose earliest messages are summarized behind a marker (x; this file's
// server summarizes past four messages, keeping two). The checklist is tools.test.mjs's u.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SCREENSHOTS, Stack, screenshot, sendMessage, systemOf, threadIdOf, until } from "./harness.mjs";

const SHOTS = join(SCREENSHOTS, "deeper");
const stack = new Stack({ screenshots: SHOTS });
const shots = [];

async function shot(page, name) {
  shots.push(await screenshot(page, name, SHOTS));
}

describe("deeper agent end to end", { concurrency: false }, () => {
  before(async () => {
    await stack.start({
      env: { ANTLER_AGENT_SUMMARIZATION_TRIGGER_MESSAGES: "4", ANTLER_AGENT_SUMMARIZATION_KEEP_MESSAGES: "2" },
    });
    console.log(`# server ${stack.baseUrl}, model ${stack.mockUrl}`);
  }, { timeout: 180_000 });

  after(async () => {
    await stack.stop();
    console.log(`# screenshots (${shots.length}) in ${SHOTS}`);
  }, { timeout: 120_000 });

  it("w. two subagents run as cards that stream their own work, end completed, and open into what they did", { timeout: 120_000 }, async () => {
    const s = await stack.page();
    try {
      const { page } = s;
      await page.goto("/");
      await page.getByTestId("model-label").waitFor();
      await sendMessage(page, "w-subtasks: check both halves of the data");
      const threadId = threadIdOf(page);
      const cards = page.getByTestId("subtask-card");
      await cards.nth(1).waitFor({ timeout: 60_000 });
      // Both run at once: seen running side by side while they stream.
      await page.locator('[data-testid=subtask-card][data-task-status=running]').nth(1).waitFor({ timeout: 30_000 });
      await shot(page, "w-subtasks-running");
      await page.getByTestId("assistant-text").filter({ hasText: "W-SUBTASKS-DONE" }).waitFor({ timeout: 60_000 });
      assert.deepEqual(
        await cards.evaluateAll((list) => list.map((c) => c.getAttribute("data-task-status"))),
        ["completed", "completed"],
      );
      const first = cards.nth(0);
      assert.match(await first.textContent(), /Check the first half/);
      assert.match(await cards.nth(1).textContent(), /bash/);
      // Opened, a card shows what its subagent streamed; the second also ran a command.
      await first.getByRole("button", { expanded: false }).first().click();
      const transcript = first.getByTestId("subtask-transcript");
      await transcript.filter({ hasText: "W-PART-ONE findings" }).waitFor();
      const second = cards.nth(1);
      await second.getByRole("button", { expanded: false }).first().click();
      await second.getByTestId("subtask-transcript").filter({ hasText: "W-PART-TWO findings" }).waitFor();
      await shot(page, "w-subtasks-open");

      // The subagents worked with their own system prompt; their runs belong to the thread.
      const requests = await stack.modelRequests();
      assert.equal(requests.filter((r) => systemOf(r).includes("<subagent")).length, 3, "two subagents, one of them twice");
      const runs = await stack.runsOf(threadId);
      assert.equal(runs.filter((r) => r.metadata?.parent_run_id).length, 2);

      // After a reload the cards come back from the history, still completed.
      await page.reload();
      await page.getByTestId("subtask-card").nth(1).waitFor();
      assert.deepEqual(
        await page.getByTestId("subtask-card").evaluateAll((list) => list.map((c) => c.getAttribute("data-task-status"))),
        ["completed", "completed"],
      );
      s.assertNoErrors();
    } finally {
      await s.close();
    }
  });

  it("x. past the threshold the earliest messages are summarized for the agent behind a marker that opens them", { timeout: 120_000 }, async () => {
    const s = await stack.page();
    try {
      const { page } = s;
      await page.goto("/");
      await page.getByTestId("model-label").waitFor();
      for (const [i, text] of ["x-one: first warm-up", "x-two: second warm-up", "x-three: the real question"].entries()) {
        await sendMessage(page, text);
        const threadId = threadIdOf(page);
        await until(
          async () => {
            const runs = await stack.runsOf(threadId);
            return runs.length === i + 1 && runs.every((r) => r.status === "success");
          },
          { message: `run ${i + 1} to succeed` },
        );
        await page.getByTestId("send-button").waitFor();
      }
      // The summarized messages fold away: the last answer is the second shown.
      await page.getByTestId("assistant-text").filter({ hasText: "X-DONE" }).nth(1).waitFor();
      const marker = page.getByTestId("summary-marker");
      await marker.waitFor({ timeout: 30_000 });
      assert.match(await marker.textContent(), /3 earlier messages were summarized/);
      // Folded: the first question is not shown until the marker is opened.
      assert.equal(await page.getByText("x-one: first warm-up").count(), 0);
      await shot(page, "x-summary-folded");
      await marker.getByRole("button", { name: /Show/ }).click();
      await page.getByText("x-one: first warm-up").waitFor();
      await marker.getByText("What the agent remembers of them").click();
      await marker.getByText("X-SUMMARY").waitFor();
      await shot(page, "x-summary-open");
      // The third question's request had the summary instead of the first three messages.
      const request = await stack.modelRequestFor("x-three: the real question");
      assert.match(systemOf(request), /X-SUMMARY/);
      assert.ok(!JSON.stringify(request.messages).includes("x-one: first warm-up"));
      s.assertNoErrors();
    } finally {
      await s.close();
    }
  });
});
