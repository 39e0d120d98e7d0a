// End-to-end tests of memory against the real server, the Docker sandbox and the scripted
// model: a fact learned from one conversation is listed in Settings → Memory, corrected there,
// and the corrected version is what the next conversation's model request is given and what
// its answer's "Remembered" chip lists (v). One server and one model for the file (its own),
// started with learning on and without its debounce (the harness turns learning off).
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SCREENSHOTS, Stack, lastUserOf, screenshot, sendMessage, systemOf, threadIdOf, until } from "./harness.mjs";

const SHOTS = join(SCREENSHOTS, "memory");
const stack = new Stack({ screenshots: SHOTS });
const shots = [];

async function shot(page, name) {
  shots.push(await screenshot(page, name, SHOTS));
}

/** The system prompt of a learning request (tests/e2e/mock.yaml answers it by scenario v). */
const LEARNING = "You maintain what an assistant remembers";

/** The model requests that learn from a conversation whose text contains `text`. */
async function learningRequestsFor(text) {
  const requests = await stack.modelRequests();
  return requests.filter((r) => systemOf(r).includes(LEARNING) && lastUserOf(r).includes(text));
}

/** The last chat request about `text`: neither a title request nor a learning request (whose
 * last user message quotes the conversation too). */
async function chatRequestFor(text) {
  const requests = await stack.modelRequests();
  const chats = requests.filter((r) => {
    const system = systemOf(r);
    return !system.includes("You write titles") && !system.includes(LEARNING) && lastUserOf(r).includes(text);
  });
  if (chats.length === 0) throw new Error(`the model received no chat request for ${JSON.stringify(text)}`);
  return chats.at(-1);
}

const TAUGHT = "v-memory: I bake sourdough every Sunday";
const LEARNED = "Bakes sourdough every Sunday";
const EDITED = "Bakes rye bread every Saturday";
const NEXT = "v-next: what bread should I bake on Saturday?";

describe("memory end to end", { concurrency: false }, () => {
  before(async () => {
    await stack.start({ env: { ANTLER_MEMORY_EXTRACTION: "true", ANTLER_MEMORY_DEBOUNCE_SECS: "0" } });
    console.log(`# server ${stack.baseUrl}, model ${stack.mockUrl}`);
  }, { timeout: 180_000 });

  after(async () => {
    const started = Date.now();
    await stack.stop();
    console.log(`# stopped the server in ${Date.now() - started} ms`);
    console.log(`# screenshots (${shots.length}) in ${SHOTS}`);
  }, { timeout: 120_000 });

  it("v. a fact learned in one conversation is shown in Settings → Memory, edited, and the edited version is what the next conversation's model request is given and its answer's chip lists", { timeout: 180_000 }, async () => {
    const s = await stack.page();
    try {
      const { page } = s;
      await page.goto("/");
      await page.getByTestId("model-label").waitFor();

      // The conversation that teaches the fact: nothing is remembered yet.
      await sendMessage(page, TAUGHT);
      const taughtThread = threadIdOf(page);
      await page.getByTestId("assistant-text").filter({ hasText: "V-MEMORY-DONE" }).waitFor({ timeout: 60_000 });
      await page.getByTestId("send-button").waitFor();
      await until(async () => (await stack.runsOf(taughtThread))[0]?.status === "success", { message: "the run to succeed" });
      assert.ok(!systemOf(await chatRequestFor(TAUGHT)).includes("<memory>"), "nothing to remember before the first fact");
      assert.equal(await page.getByTestId("remembered-chip").count(), 0);

      // Settings → Memory lists the fact once the conversation is learned from (right after
      // the run, without a debounce): reloaded until it shows.
      await page.getByRole("link", { name: "Memory", exact: true }).click();
      await page.waitForURL(/\/settings\/memory$/);
      const rows = page.getByTestId("fact-row");
      await until(
        async () => {
          await page.getByRole("heading", { name: /^Facts/ }).waitFor();
          if ((await rows.filter({ hasText: LEARNED }).count()) > 0) return true;
          await page.reload();
          return false;
        },
        { timeout: 60_000, interval: 500, message: `Settings → Memory to list “${LEARNED}”` },
      );
      const learning = await learningRequestsFor(TAUGHT);
      assert.equal(learning.length, 1, "the conversation was learned from once");
      const read = lastUserOf(learning[0]);
      assert.ok(read.startsWith("Known facts:\n(none)\n"), `nothing was known: ${read}`);
      assert.ok(read.includes(`Conversation:\nUser: ${TAUGHT}\nAssistant: Sourdough every Sunday sounds lovely`), `the conversation was read: ${read}`);
      assert.equal(await rows.count(), 1);
      const learned = rows.first();
      assert.equal(await learned.locator(".fact-content").textContent(), LEARNED);
      const meta = learned.getByTestId("fact-meta");
      assert.equal(await meta.locator(".badge").first().textContent(), "Preference");
      await meta.getByText("90% sure", { exact: true }).waitFor();
      assert.equal(await meta.getByRole("link", { name: "source conversation" }).getAttribute("href"), `/threads/${taughtThread}`);
      const learnedId = await learned.getAttribute("data-fact");
      await shot(page, "v-memory-learned");

      // Edit: corrected in place, saved as a new version that replaces it.
      const editing = page.locator(`[data-testid=fact-row][data-fact="${learnedId}"]`);
      await editing.getByRole("button", { name: `Edit “${LEARNED}”` }).click();
      const box = editing.getByRole("textbox", { name: "Fact" });
      assert.equal(await box.inputValue(), LEARNED);
      await box.fill(EDITED);
      await shot(page, "v-memory-editing");
      await editing.getByRole("button", { name: "Save" }).click();
      const edited = rows.filter({ hasText: EDITED });
      await edited.getByRole("status").filter({ hasText: "saved as a new version" }).waitFor();
      assert.equal(await rows.count(), 1);
      assert.equal(await edited.locator(".fact-content").textContent(), EDITED);
      assert.notEqual(await edited.getAttribute("data-fact"), learnedId, "a new version");
      await shot(page, "v-memory-edited");
      const list = await stack.api("GET", "/api/memory");
      assert.equal(list.facts.length, 1, JSON.stringify(list.facts));
      const fact = list.facts[0];
      assert.deepEqual(
        { content: fact.content, category: fact.category, supersedes: fact.supersedes, source_thread: fact.source_thread },
        { content: EDITED, category: "preference", supersedes: learnedId, source_thread: taughtThread },
      );
      // Stored: a reload shows the new version only.
      await page.reload();
      await rows.filter({ hasText: EDITED }).waitFor();
      assert.equal(await rows.count(), 1);

      // The next conversation: its words match the fact, which reaches the model as corrected.
      await page.getByRole("link", { name: "Chat", exact: true }).click();
      await page.getByTestId("welcome").waitFor();
      await sendMessage(page, NEXT);
      const nextThread = threadIdOf(page);
      assert.notEqual(nextThread, taughtThread, "a new conversation");
      await page.getByTestId("assistant-text").filter({ hasText: "V-NEXT-DONE" }).waitFor({ timeout: 60_000 });
      await page.getByTestId("send-button").waitFor();
      const system = systemOf(await chatRequestFor(NEXT));
      assert.ok(system.includes("<memory>"), "the system prompt has a memory section");
      assert.ok(system.includes(EDITED), `the corrected fact is given: ${system}`);
      assert.ok(!/sourdough/i.test(system), "the fact as first learned is not given");

      // Its answer says so; the chip lists the fact as corrected.
      const chip = page.getByTestId("remembered-chip");
      assert.equal((await chip.textContent())?.trim(), "Remembered 1 thing");
      assert.equal(await chip.getAttribute("aria-expanded"), "false");
      await chip.click();
      assert.equal(await chip.getAttribute("aria-expanded"), "true");
      const popover = page.getByRole("dialog", { name: "What the agent remembered" });
      const remembered = popover.getByTestId("remembered-list");
      await remembered.waitFor();
      assert.deepEqual(await remembered.locator(".remembered-content").allTextContents(), [EDITED]);
      assert.equal(await remembered.locator(".badge").textContent(), "Preference");
      assert.equal(await remembered.getByText("(forgotten)").count(), 0);
      await shot(page, "v-remembered-chip");
      await page.keyboard.press("Escape");
      await popover.waitFor({ state: "detached" });
      assert.equal(await chip.getAttribute("aria-expanded"), "false");

      // This conversation is learned from too, knowing the corrected fact (the script finds
      // nothing new in it).
      const relearning = await until(async () => (await learningRequestsFor(NEXT)).at(0), {
        timeout: 30_000,
        message: "the next conversation to be learned from",
      });
      assert.ok(lastUserOf(relearning).startsWith(`Known facts:\n${fact.fact_id}: [preference] ${EDITED}\n`), lastUserOf(relearning));

      // From the chip to Settings → Memory: the fact, unchanged, now used.
      await chip.click();
      await popover.getByRole("link", { name: "Manage in Settings → Memory" }).click();
      await page.waitForURL(/\/settings\/memory$/);
      const used = rows.filter({ hasText: EDITED });
      await used.getByTestId("fact-meta").getByText(/^last used /).waitFor();
      assert.equal(await rows.count(), 1);
      assert.equal(await used.getAttribute("data-fact"), fact.fact_id);
      s.assertNoErrors();
    } finally {
      await s.close();
    }
  });
});
