// End-to-end test of conversation search and export against the real server, the Docker
// sandbox and the scripted model (scenario "search" in mock.yaml): the sidebar's search box
// finds a word from an older conversation with the match highlighted, opens it, and clearing
// the box brings the list back; the conversation's Export menu downloads valid Markdown and
// valid JSON (the thread, its state and its history).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SCREENSHOTS, Stack, screenshot, sendMessage, threadIdOf } from "./harness.mjs";

const SHOTS = join(SCREENSHOTS, "search");
const stack = new Stack({ screenshots: SHOTS });

const OLD = "search-e2e-old: tell me about a flying reptile";
const NEW = "search-e2e-new: and now something different";

describe("conversation search and export end to end", { concurrency: false }, () => {
  before(async () => {
    await stack.start();
  }, { timeout: 180_000 });

  after(async () => {
    await stack.stop();
  }, { timeout: 120_000 });

  it("search. a word from an older conversation is found, highlighted and opened; export downloads Markdown and JSON", { timeout: 180_000 }, async () => {
    const s = await stack.page();
    try {
      const { page } = s;
      await page.goto("/");
      await page.getByTestId("model-label").waitFor();
      await sendMessage(page, OLD);
      const old = threadIdOf(page);
      await page.getByTestId("assistant-text").filter({ hasText: "SEARCH-E2E-OLD-DONE" }).waitFor({ timeout: 60_000 });

      await page.goto("/");
      await page.getByTestId("model-label").waitFor();
      await sendMessage(page, NEW);
      const newer = threadIdOf(page);
      assert.notEqual(newer, old);
      await page.getByTestId("assistant-text").filter({ hasText: "SEARCH-E2E-NEW-DONE" }).waitFor({ timeout: 60_000 });
      await page.locator(`[data-testid=thread-item][data-thread-id="${old}"]`).waitFor();

      // A word of the older answer, typed in another case: only that conversation, marked.
      const box = page.getByRole("searchbox", { name: "Search conversations" });
      await box.fill("QUETZAL");
      const results = page.getByTestId("search-results");
      await results.waitFor();
      const items = results.locator("[data-thread-id]");
      await page.waitForFunction(() => document.querySelectorAll("[data-testid=search-results] [data-thread-id]").length === 1);
      assert.equal(await items.first().getAttribute("data-thread-id"), old);
      const marks = await results.locator("mark").allTextContents();
      assert.ok(marks.includes("Quetzal"), `marks: ${JSON.stringify(marks)}`);
      assert.match(await results.getByTestId("search-snippet").textContent(), /Quetzalcoatlus was a giant pterosaur/);
      assert.equal(await page.getByTestId("thread-item").count(), 0, "the results replace the list");
      await screenshot(page, "search-results", SHOTS);

      // The keyboard opens it: down to the result, Enter.
      await box.press("ArrowDown");
      await page.keyboard.press("Enter");
      await page.waitForURL(new RegExp(`/threads/${old}$`));
      await page.getByTestId("assistant-text").filter({ hasText: "SEARCH-E2E-OLD-DONE" }).waitFor();

      // Clearing the box brings the usual list back.
      await page.getByRole("button", { name: "Clear search" }).click();
      await page.locator(`[data-testid=thread-item][data-thread-id="${newer}"]`).waitFor();
      assert.equal(await page.getByTestId("search-results").count(), 0);

      // Export as Markdown: a file named after the title, the conversation in it.
      await page.getByTestId("export-button").click();
      const [markdown] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-markdown").click()]);
      assert.match(markdown.suggestedFilename(), /\.md$/);
      const md = readFileSync(await markdown.path(), "utf8");
      assert.match(md, /^# .+\n/);
      assert.match(md, /## User\n\nsearch-e2e-old: tell me about a flying reptile/);
      assert.match(md, /## Assistant\n\nQuetzalcoatlus was a giant pterosaur\. SEARCH-E2E-OLD-DONE\./);

      // Export as JSON: valid JSON holding the thread, its state and its history.
      await page.getByTestId("export-button").click();
      const [json] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-json").click()]);
      assert.match(json.suggestedFilename(), /\.json$/);
      const doc = JSON.parse(readFileSync(await json.path(), "utf8"));
      assert.equal(doc.thread.thread_id, old);
      const texts = doc.state.values.messages.map((m) => m.content);
      assert.ok(texts.includes(OLD), JSON.stringify(texts));
      assert.ok(Array.isArray(doc.history) && doc.history.length >= 1);
      s.assertNoErrors();
    } finally {
      await s.close();
    }
  });
});
