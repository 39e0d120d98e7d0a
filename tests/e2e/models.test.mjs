// End-to-end test of choosing a model per message against the real server and the scripted
// model: two models are configured (a scripted demo, and one that thinks with an effort, has a
// context window and prices); the composer's picker and thinking control choose the second at
// high effort; the model receives that choice; the reasoning shows folded above the answer
// and opens; the answer's usage line and the context meter show what the call used; the
// choice is the thread's when it opens elsewhere; and over a daily token limit (the admin's own,
// set through `PUT /api/usage/limits/{user}`) the next message is refused with a banner saying
// when the limit resets.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SCREENSHOTS, Stack, screenshot, sendMessage, threadIdOf, until } from "./harness.mjs";

const SHOTS = join(SCREENSHOTS, "models");
const stack = new Stack({ screenshots: SHOTS });
// mock.yaml answers messages with this marker by scenario m-models: reasoning, an answer, and
// 900 prompt + 300 completion tokens.
const FIRST = "m-models: which option is better?";
const SECOND = "m-models: and the third one?";
// Over this many tokens today, runs are refused: the first answer uses 1,200.
const DAILY_TOKENS = 1000;

const models = (url) =>
  `[{name: e2e-demo, base_url: "${url}/v1", model: mock, api_key_env: null, demo: true},` +
  ` {name: thinker, base_url: "${url}/v1", model: mock-thinker, api_key_env: null, supports_reasoning: true,` +
  ` supports_thinking: true, supports_reasoning_effort: true, context_window: 8000, max_output_tokens: 2000,` +
  ` pricing: {input: 2.0, cached_input: 0.5, output: 8.0}}]`;

/** The next midnight UTC after `now`: when a daily limit resets. */
function nextUtcMidnight(now = new Date()) {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

describe("models, thinking and usage", { concurrency: false }, () => {
  before(async () => {
    await stack.start({
      env: (url) => ({ ANTLER_MODELS: models(url) }),
    });
    console.log(`# server ${stack.baseUrl}, model ${stack.mockUrl}`);
  }, { timeout: 180_000 });

  after(async () => {
    await stack.stop();
  }, { timeout: 120_000 });

  it("m. a model and thinking level picked in the composer reach the model; reasoning folds, usage shows, the meter moves, and over the daily limit a message is refused", { timeout: 180_000 }, async () => {
    const s = await stack.page();
    // The refused run's request (the SDK tries it twice) logs its 429.
    s.allow(/429|Too Many Requests/);
    try {
      const { page } = s;
      await page.goto("/");
      await page.getByTestId("model-label").waitFor();

      // The picker lists both models, the demo marked; the demo cannot think: no thinking menu.
      const picker = page.getByRole("combobox", { name: "Model" });
      assert.deepEqual(await picker.locator("option").allTextContents(), ["e2e-demo (demo)", "thinker"]);
      assert.equal(await picker.inputValue(), "e2e-demo");
      const thinking = page.getByRole("combobox", { name: "Thinking" });
      assert.equal(await thinking.count(), 0);
      assert.equal(await page.getByRole("meter", { name: "Context window" }).count(), 0, "the demo's window is unknown");
      const composerTop = (await page.locator("form.composer").boundingBox())?.y;

      // Keyboard: the picker takes the thinking model; its thinking menu offers efforts.
      await picker.focus();
      await picker.selectOption("thinker");
      await thinking.waitFor();
      assert.deepEqual(await thinking.locator("option").allTextContents(), ["Off", "Low", "Medium", "High"]);
      assert.equal(await thinking.inputValue(), "off");
      await thinking.selectOption("high");
      const meter = page.getByRole("meter", { name: "Context window" });
      await meter.waitFor();
      assert.equal(await meter.getAttribute("aria-valuenow"), "0");
      assert.equal(await meter.getAttribute("aria-valuemax"), "8000");
      // The row under the message box keeps its height: the composer did not move.
      assert.equal((await page.locator("form.composer").boundingBox())?.y, composerTop);
      await screenshot(page, "m-picker", SHOTS);

      await sendMessage(page, FIRST);
      const threadId = threadIdOf(page);
      await page.getByTestId("assistant-text").filter({ hasText: "M-ANSWER" }).waitFor({ timeout: 60_000 });
      await until(async () => (await stack.runsOf(threadId))[0]?.status === "success", { timeout: 60_000, message: "the run" });

      // [M] The model received the choice: the thinking model's id and the effort.
      const request = await stack.modelRequestFor(FIRST);
      assert.equal(request.model, "mock-thinker");
      assert.equal(request.reasoning_effort, "high");

      // The reasoning is folded above the answer; the summary opens it (Enter on it).
      const reasoning = page.getByTestId("reasoning");
      await reasoning.waitFor();
      assert.equal(await reasoning.evaluate((d) => d.open), false);
      assert.equal(await page.getByText("M-REASONING").isVisible(), false);
      const order = await page.locator('[data-testid="reasoning"], [data-testid="assistant-text"]').evaluateAll((els) => els.map((e) => e.dataset.testid));
      assert.deepEqual(order, ["reasoning", "assistant-text"]);
      await reasoning.locator("summary").focus();
      await page.keyboard.press("Enter");
      await page.getByText("M-REASONING").waitFor();

      // [U] Under the answer: tokens in / cached / out and the cost (900 × $2 + 300 × $8 per
      // million = $0.0042); every figure in the tooltip.
      const usage = page.getByTestId("usage-line");
      await usage.waitFor();
      assert.equal(await usage.textContent(), "900 in · 0 cached · 300 out · $0.0042");
      const details = await usage.getAttribute("title");
      assert.match(details, /Input: 900 tokens \(0 from cache\)/);
      assert.match(details, /Output: 300 tokens/);
      assert.match(details, /Cost: \$0\.0042/);

      // The meter moved: the last answer read 900 tokens and wrote 300, of 8,000.
      await until(async () => (await meter.getAttribute("aria-valuenow")) === "1200", { message: "the meter to move" });
      assert.equal(await meter.textContent(), "15%");
      assert.match(await meter.getAttribute("title"), /1,200 of 8,000 tokens \(15%\)/);
      await screenshot(page, "m-answer", SHOTS);

      // [M] The thread remembers the choice; a browser that never picked anything shows it.
      const thread = await stack.api("GET", `/api/threads/${threadId}`);
      assert.deepEqual(thread.metadata.model_choice, { model_name: "thinker", thinking: true, reasoning_effort: "high" });
      const other = await stack.page();
      try {
        await other.page.goto(`/threads/${threadId}`);
        await other.page.getByTestId("assistant-text").filter({ hasText: "M-ANSWER" }).waitFor();
        await until(async () => (await other.page.getByRole("combobox", { name: "Model" }).inputValue()) === "thinker", { message: "the thread's model" });
        assert.equal(await other.page.getByRole("combobox", { name: "Thinking" }).inputValue(), "high");
        other.assertNoErrors();
      } finally {
        await other.close();
      }

      // [U] A daily token limit below what the first answer used: the next message is refused
      // before it reaches the model, and a banner says when the limit resets, in local time.
      const me = await stack.api("GET", "/api/auth/me");
      await stack.api("PUT", `/api/usage/limits/${encodeURIComponent(me.id)}`, { tokens_per_day: DAILY_TOKENS, cost_usd_per_day: null });
      const { limit } = await stack.api("GET", "/api/usage");
      assert.equal(limit.tokens_per_day, DAILY_TOKENS);
      assert.ok(limit.used_tokens_today >= 1200, `the first answer counts: ${JSON.stringify(limit)}`);
      await sendMessage(page, SECOND);
      const banner = page.getByTestId("usage-limit-banner");
      await banner.waitFor({ timeout: 30_000 });
      assert.match(await banner.textContent(), /Daily usage limit reached\. You have used [\d,]+ of your 1,000 tokens for today\./);
      // The refused message stays on screen (to copy or send again after the reset).
      await page.getByTestId("human-message").filter({ hasText: SECOND }).waitFor();
      const reset = banner.getByTestId("usage-limit-reset");
      const resetsAt = new Date(await reset.getAttribute("datetime"));
      assert.equal(resetsAt.getTime(), nextUtcMidnight().getTime());
      // The time shown is the reset in the browser's time zone.
      const shown = await page.evaluate((iso) => new Date(iso).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" }), resetsAt.toISOString());
      assert.ok((await reset.textContent()).includes(shown), `the reset time ${shown} is shown`);
      assert.equal(await page.getByTestId("run-error").count(), 0, "a refusal is not a failed run to retry");
      const asked = (await stack.modelRequests()).filter((r) => JSON.stringify(r.messages ?? []).includes(SECOND));
      assert.equal(asked.length, 0, "the refused message never reached the model");
      await screenshot(page, "m-limit", SHOTS);
      s.assertNoErrors();
    } finally {
      await s.close();
    }
  });
});
