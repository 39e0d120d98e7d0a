// End-to-end test of feedback on answers against the real server, the Docker sandbox and the
// scripted model (scenario "feedback" in mock.yaml): thumbs down with a comment under an
// answer is stored (checked through the API), shows pressed again after a reload, appears in
// the admin runs console (list filtered by rating, the comment in the run's detail), and the
// console's export downloads it as JSON Lines.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SCREENSHOTS, Stack, screenshot, sendMessage, threadIdOf, until } from "./harness.mjs";

const SHOTS = join(SCREENSHOTS, "feedback");
const stack = new Stack({ screenshots: SHOTS });

const ASK = "feedback-e2e: what is the capital of Australia?";
const COMMENT = "It should say why Canberra was chosen.";

describe("feedback on answers end to end", { concurrency: false }, () => {
  before(async () => {
    await stack.start();
  }, { timeout: 180_000 });

  after(async () => {
    await stack.stop();
  }, { timeout: 120_000 });

  it("feedback. thumbs down with a comment is stored, kept after a reload, and shown in the console", { timeout: 180_000 }, async () => {
    const s = await stack.page();
    try {
      const { page } = s;
      await page.goto("/");
      await page.getByTestId("model-label").waitFor();
      await sendMessage(page, ASK);
      const thread = threadIdOf(page);
      const answer = page.getByRole("article", { name: "Assistant" }).filter({ hasText: "FEEDBACK-E2E-DONE" });
      await answer.waitFor({ timeout: 60_000 });
      const runs = await until(
        async () => {
          const r = await stack.runsOf(thread);
          return r.length === 1 && r[0].status === "success" && r;
        },
        { message: "the run to succeed" },
      );
      const runId = runs[0].run_id;

      // The thumbs come with the answer's history; nothing is rated yet.
      const bad = answer.getByRole("button", { name: "Bad answer" });
      const good = answer.getByRole("button", { name: "Good answer" });
      await bad.waitFor({ timeout: 30_000 });
      assert.equal(await bad.getAttribute("aria-pressed"), "false");
      await bad.click();
      assert.equal(await bad.getAttribute("aria-pressed"), "true");
      assert.equal(await good.getAttribute("aria-pressed"), "false");
      const box = answer.getByLabel("What went wrong? (optional)");
      await box.fill(COMMENT);
      await screenshot(page, "feedback-comment", SHOTS);
      await answer.getByRole("button", { name: "Send" }).click();
      await box.waitFor({ state: "detached" });

      // Stored for this run, with the comment.
      const stored = await until(
        async () => {
          const { feedback } = await stack.api("GET", `/api/threads/${encodeURIComponent(thread)}/feedback`);
          return feedback.length === 1 && feedback[0].comment === COMMENT && feedback;
        },
        { message: "the feedback to be stored with its comment" },
      );
      assert.equal(stored[0].run_id, runId);
      assert.equal(stored[0].rating, "down");

      // A reload reads it back: the thumb is pressed.
      await page.reload();
      await answer.waitFor();
      await bad.waitFor();
      await until(async () => (await bad.getAttribute("aria-pressed")) === "true", { message: "the thumb pressed after a reload" });
      assert.equal(await good.getAttribute("aria-pressed"), "false");
      await screenshot(page, "feedback-reloaded", SHOTS);

      // The console: the run is listed under "Rated bad", and its detail shows the comment.
      await page.goto("/admin/runs?feedback=down");
      const row = page.locator(`[data-testid="run-row"][data-run-id="${runId}"]`);
      await row.waitFor();
      assert.equal(await page.getByTestId("run-row").count(), 1, "only the rated run");
      await row.getByRole("img", { name: "Rated bad" }).waitFor();
      await screenshot(page, "feedback-console", SHOTS);

      // The export downloads everyone's feedback as JSON Lines.
      const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("feedback-export").click()]);
      assert.match(download.suggestedFilename(), /^feedback-.*\.jsonl$/);
      const lines = readFileSync(await download.path(), "utf8").trim().split("\n").map((l) => JSON.parse(l));
      assert.equal(lines.length, 1);
      assert.equal(lines[0].run_id, runId);
      assert.equal(lines[0].thread_id, thread);
      assert.equal(lines[0].rating, "down");
      assert.equal(lines[0].comment, COMMENT);
      assert.equal(lines[0].user_email, "admin@antler.test");
      assert.equal(lines[0].model, "e2e-demo");

      await row.click();
      await page.waitForURL(new RegExp(`/admin/runs/${runId}$`));
      const section = page.getByTestId("detail-feedback");
      await section.getByText(COMMENT).waitFor();
      assert.match(await section.textContent(), /Rated bad/);
      assert.match(await section.textContent(), /admin@antler\.test/);
      await screenshot(page, "feedback-detail", SHOTS);
      s.assertNoErrors();
    } finally {
      await s.close();
    }
  });
});
