// End-to-end test of follow-up suggestions against the real server, the Docker sandbox and
// the scripted model (scenario "sugg" in mock.yaml): after an answer, chips with the
// suggested follow-ups appear under it (and again after a reload, from the thread's
// metadata); clicking one sends it and its answer arrives; the chips go with the new run.
// One server for the file, started with suggestions on (the harness turns them off).
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SCREENSHOTS, Stack, lastUserOf, screenshot, sendMessage, systemOf, threadIdOf, until } from "./harness.mjs";

const SHOTS = join(SCREENSHOTS, "suggestions");
const stack = new Stack({ screenshots: SHOTS });

const ASK = "sugg-e2e: what can you do?";
const FOLLOW_UPS = ["sugg-e2e-next: show me an example", "sugg-e2e-next: explain it simply"];
const SUGGESTING = "You suggest follow-up";

describe("follow-up suggestions end to end", { concurrency: false }, () => {
  before(async () => {
    await stack.start({ env: { ANTLER_AGENT_SUGGESTIONS_ENABLED: "true" } });
  }, { timeout: 180_000 });

  after(async () => {
    await stack.stop();
  }, { timeout: 120_000 });

  it("sugg. chips appear under the answer, survive a reload, and clicking one sends it", { timeout: 180_000 }, async () => {
    const s = await stack.page();
    try {
      const { page } = s;
      await page.goto("/");
      await page.getByTestId("model-label").waitFor();
      await sendMessage(page, ASK);
      const thread = threadIdOf(page);
      await page.getByTestId("assistant-text").filter({ hasText: "SUGG-E2E-DONE" }).waitFor({ timeout: 60_000 });

      const group = page.getByRole("group", { name: "Suggested follow-ups" });
      await group.waitFor({ timeout: 30_000 });
      const chips = group.getByRole("button");
      assert.deepEqual(await chips.allTextContents(), FOLLOW_UPS);
      // One call, about the exchange just made.
      const calls = (await stack.modelRequests()).filter((r) => systemOf(r).includes(SUGGESTING));
      assert.equal(calls.length, 1);
      assert.ok(lastUserOf(calls[0]).includes(ASK), lastUserOf(calls[0]));
      await screenshot(page, "sugg-chips", SHOTS);

      // Kept with the conversation: a reload shows them again.
      await page.reload();
      await page.getByTestId("assistant-text").filter({ hasText: "SUGG-E2E-DONE" }).waitFor();
      await group.waitFor();
      assert.deepEqual(await chips.allTextContents(), FOLLOW_UPS);

      // Clicking one sends it as the next message; its answer arrives, and the old chips
      // are gone (the second answer has none).
      await chips.first().click();
      await page.getByTestId("assistant-text").filter({ hasText: "SUGG-E2E-NEXT-DONE" }).waitFor({ timeout: 60_000 });
      await page.getByText(FOLLOW_UPS[0], { exact: true }).first().waitFor();
      await until(
        async () => {
          const runs = await stack.runsOf(thread);
          return runs.length === 2 && runs.every((r) => r.status === "success");
        },
        { message: "both runs to succeed" },
      );
      const sent = (await stack.modelRequests()).filter((r) => !systemOf(r).includes(SUGGESTING) && lastUserOf(r) === FOLLOW_UPS[0]);
      assert.equal(sent.length, 1, "the chip's text was sent to the model as the next message");
      await until(async () => (await stack.modelRequests()).filter((r) => systemOf(r).includes(SUGGESTING)).length === 2, {
        message: "the second answer's suggestions call",
      });
      await page.getByTestId("send-button").waitFor();
      assert.equal(await group.count(), 0, "no chips under the second answer");
      await screenshot(page, "sugg-sent", SHOTS);
      s.assertNoErrors();
    } finally {
      await s.close();
    }
  });
});
