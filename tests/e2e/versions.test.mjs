// End-to-end tests of custom agents and of versions in the chat (Edit, Regenerate and the
// ‹ i / n › switcher) against the real server, the Docker sandbox and the scripted model. One
// server and one model for the file (its own, not suite.test.mjs's); every scenario uses new
// threads.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SCREENSHOTS, Stack, lastUserOf, screenshot, sendMessage, systemOf, threadIdOf, until } from "./harness.mjs";

const SHOTS = join(SCREENSHOTS, "versions");
const stack = new Stack({ screenshots: SHOTS });
const shots = [];

async function shot(page, name) {
  shots.push(await screenshot(page, name, SHOTS));
}

/** The label of the agent the chat's Agent menu shows (once the agents are loaded). */
async function pickedAgent(page) {
  const picker = page.getByTestId("agent-picker");
  await picker.waitFor();
  return picker.evaluate((el) => el.selectedOptions[0]?.textContent ?? "");
}

/** The names of the tools a model request offered. */
const toolsOf = (request) => (request.tools ?? []).map((t) => t.function?.name).sort();

/** The id of the last answer of the version of a thread its state shows. */
async function lastAnswerId(threadId) {
  const state = await stack.api("GET", `/api/threads/${encodeURIComponent(threadId)}/state`);
  return (state.values.messages ?? []).filter((m) => m.type === "ai").at(-1)?.id;
}

/** The ‹ i / n › of a switcher, as shown. */
async function countOf(switcher) {
  return (await switcher.locator(".branch-count").textContent())?.trim();
}

async function untilCount(switcher, expected) {
  await until(async () => (await countOf(switcher)) === expected, { message: `the switcher to show ${expected}` });
}

describe("custom agents and versions end to end", { concurrency: false }, () => {
  before(async () => {
    await stack.start();
    console.log(`# server ${stack.baseUrl}, model ${stack.mockUrl}`);
  }, { timeout: 180_000 });

  after(async () => {
    const started = Date.now();
    await stack.stop();
    console.log(`# stopped the server in ${Date.now() - started} ms`);
    console.log(`# screenshots (${shots.length}) in ${SHOTS}`);
  }, { timeout: 120_000 });

  it("q. a custom agent is created, edited, restored, picked in the chat (its instructions, tools and skill reach the model), kept for new chats, and deleted", { timeout: 180_000 }, async () => {
    const s = await stack.page();
    try {
      const { page } = s;
      await page.goto("/");
      await page.getByTestId("model-label").waitFor();
      await page.getByRole("link", { name: "Agents", exact: true }).click();
      await page.waitForURL(/\/settings\/agents$/);
      await page.locator('[data-testid=agent-row][data-agent="Antler"]').getByText("built-in", { exact: true }).waitFor();

      // New: instructions, two tools and one skill.
      await page.getByRole("button", { name: "New agent" }).click();
      const form = page.getByRole("dialog", { name: "New agent" });
      await form.getByLabel("Name", { exact: true }).fill("Haiku writer");
      await form.getByLabel("Instructions").fill("Always answer in haiku.");
      await form.getByTestId("instructions-count").filter({ hasText: /^23 \// }).waitFor();
      const tools = form.getByTestId("choice-tools");
      await tools.getByRole("radio", { name: "Only the tools checked" }).check();
      await tools.getByRole("checkbox", { name: "read_file", exact: true }).check();
      await tools.getByRole("checkbox", { name: "ls", exact: true }).check();
      await tools.getByText(/^2 of \d+ checked$/).waitFor();
      const skills = form.getByTestId("choice-skills");
      await skills.getByRole("radio", { name: "Only the skills checked" }).check();
      await skills.getByRole("checkbox", { name: "markdown-report", exact: true }).check();
      await skills.getByText(/^1 of \d+ checked$/).waitFor();
      await shot(page, "q-agent-form");
      const created = page.waitForResponse((r) => r.url().endsWith("/api/assistants") && r.request().method() === "POST");
      await form.getByRole("button", { name: "Create agent" }).click();
      assert.equal((await created).status(), 200);
      const agent = await (await created).json();
      assert.deepEqual(
        { ...agent.context, tools: [...agent.context.tools].sort() },
        { system_prompt: "Always answer in haiku.", skills: ["markdown-report"], tools: ["ls", "read_file"] },
      );
      await page.getByTestId("toast").filter({ hasText: "Created “Haiku writer”." }).waitFor();
      await form.waitFor({ state: "hidden" });
      const row = page.locator('[data-testid=agent-row][data-agent="Haiku writer"]');
      await row.getByTestId("agent-version-badge").filter({ hasText: "version 1" }).waitFor();
      assert.equal(await row.getByTestId("agent-meta").textContent(), "Server default model · 1 skill · 2 tools · own instructions");

      // Edit: a new version.
      await row.getByRole("button", { name: "Edit Haiku writer" }).click();
      const edit = page.getByRole("dialog", { name: "Edit “Haiku writer”" });
      await edit.getByText("Version 1. Saving makes a new version").waitFor();
      assert.equal(await edit.getByLabel("Instructions").inputValue(), "Always answer in haiku.");
      await edit.getByLabel("Description").fill("Answers in five, seven and five syllables.");
      await edit.getByRole("button", { name: "Save", exact: true }).click();
      await page.getByTestId("toast").filter({ hasText: "Saved “Haiku writer” (version 2)." }).waitFor();
      await row.getByTestId("agent-version-badge").filter({ hasText: "version 2" }).waitFor();
      await row.getByText("Answers in five, seven and five syllables.").waitFor();
      assert.equal(await row.getByTestId("agent-meta").textContent(), "Server default model · 1 skill · 2 tools · own instructions", "the edit kept the settings");
      await shot(page, "q-agents-list");

      // Versions: two, version 1 restored.
      await row.getByRole("button", { name: "Versions of Haiku writer" }).click();
      const versions = page.getByRole("dialog", { name: "Versions of “Haiku writer”" });
      const items = versions.getByTestId("agent-version");
      await until(async () => (await items.count()) === 2, { message: "two versions" });
      assert.match(await items.first().textContent(), /^Version 2 current/, "newest first, the current one marked");
      assert.equal(await versions.getByRole("button", { name: "Restore version 2" }).count(), 0, "the current version is not offered");
      await versions.getByRole("button", { name: "Restore version 1" }).click();
      await page.getByTestId("toast").filter({ hasText: "Version 1 of “Haiku writer” is current again." }).waitFor();
      await items.filter({ hasText: "Version 1" }).getByText("current", { exact: true }).waitFor();
      await versions.getByRole("button", { name: "Restore version 2" }).waitFor();
      assert.equal(await items.count(), 2, "a restore makes no new version");
      await shot(page, "q-agent-versions");
      await versions.getByRole("button", { name: "Close" }).click();
      await versions.waitFor({ state: "hidden" });
      await row.getByTestId("agent-version-badge").filter({ hasText: "version 1" }).waitFor();
      await row.getByText("Answers in five, seven and five syllables.").waitFor({ state: "detached" });
      const current = await stack.api("GET", `/api/assistants/${agent.assistant_id}`);
      assert.equal(current.version, 1);
      assert.ok(!current.description, "version 1 has no description");

      // The chat: the agent picked in the Agent menu runs with its instructions, tools and skill.
      await page.getByRole("link", { name: "Chat", exact: true }).click();
      await page.getByTestId("welcome").waitFor();
      assert.equal(await pickedAgent(page), "Antler (built-in)");
      await page.getByTestId("agent-picker").selectOption({ label: "Haiku writer" });
      await sendMessage(page, "q-haiku please");
      const first = threadIdOf(page);
      await page.getByTestId("assistant-text").filter({ hasText: "the agent obeys" }).waitFor({ timeout: 60_000 });
      const request = await stack.modelRequestFor("q-haiku please");
      const system = systemOf(request);
      assert.ok(system.includes("<agent_instructions>\nAlways answer in haiku.\n</agent_instructions>"), "the instructions are in the system prompt");
      assert.deepEqual(toolsOf(request), ["ls", "read_file"], "only the agent's tools are offered");
      assert.ok(system.includes("/mnt/skills/public/markdown-report/SKILL.md"), "its skill is listed");
      assert.ok(!system.includes("/mnt/skills/public/skill-creator/SKILL.md"), "other skills are not");
      await until(async () => (await stack.api("GET", `/api/threads/${first}`)).metadata.assistant_id === agent.assistant_id, {
        message: "the conversation to record its agent",
      });
      await shot(page, "q-agent-chat");

      // A new conversation runs the agent picked last, also after a reload.
      await page.getByRole("link", { name: "New chat", exact: true }).click();
      await page.getByTestId("welcome").waitFor();
      assert.equal(await pickedAgent(page), "Haiku writer");
      await page.reload();
      await page.getByTestId("welcome").waitFor();
      assert.equal(await pickedAgent(page), "Haiku writer", "the browser remembers the pick");
      await sendMessage(page, "q-haiku again");
      await page.getByTestId("assistant-text").filter({ hasText: "the agent obeys" }).waitFor({ timeout: 60_000 });
      assert.ok((await stack.systemPromptFor("q-haiku again")).includes("Always answer in haiku."));

      // Delete, with the confirmation: gone from the list, and the chat falls back to the built-in.
      await page.getByRole("link", { name: "Agents", exact: true }).click();
      await row.getByRole("button", { name: "Delete Haiku writer" }).click();
      const confirm = page.getByRole("alertdialog", { name: "Delete agent?" });
      await confirm.getByText("“Haiku writer” and its versions will be deleted.").waitFor();
      await confirm.getByRole("button", { name: "Delete", exact: true }).click();
      await page.getByTestId("toast").filter({ hasText: "Deleted “Haiku writer”." }).waitFor();
      await row.waitFor({ state: "detached" });
      await stack.api("GET", `/api/assistants/${agent.assistant_id}`, undefined, 404);
      await page.getByRole("link", { name: "Chat", exact: true }).click();
      await page.getByTestId("welcome").waitFor();
      await until(async () => (await pickedAgent(page)) === "Antler (built-in)", { message: "the menu to fall back to the built-in agent" });
      assert.equal(await page.getByTestId("agent-picker").locator("option", { hasText: "Haiku writer" }).count(), 0);
      // The conversation that used it: the built-in answers there now, with every tool.
      await page.locator(`[data-testid=thread-item][data-thread-id="${first}"]`).getByRole("link").first().click();
      await page.waitForURL(new RegExp(`/threads/${first}$`));
      await page.getByTestId("assistant-text").filter({ hasText: "the agent obeys" }).waitFor();
      assert.equal(await pickedAgent(page), "Antler (built-in)");
      await sendMessage(page, "q-haiku after the delete");
      await page.getByTestId("assistant-text").filter({ hasText: "A plain answer, not a haiku." }).waitFor({ timeout: 60_000 });
      const plain = await stack.modelRequestFor("q-haiku after the delete");
      assert.ok(!systemOf(plain).includes("Always answer in haiku."), "no instructions");
      assert.ok(toolsOf(plain).includes("bash") && toolsOf(plain).length > 2, `every tool: ${toolsOf(plain)}`);
      await shot(page, "q-agent-deleted-chat");
      s.assertNoErrors();
    } finally {
      await s.close();
    }
  });

  it("r. Edit runs a changed message again as a new version; ‹ 1 / 2 › shows either, also after a reload", { timeout: 120_000 }, async () => {
    const s = await stack.page();
    try {
      const { page } = s;
      await page.goto("/");
      await sendMessage(page, "r-edit the first question");
      const threadId = threadIdOf(page);
      const human = page.getByTestId("human-message");
      const text = page.getByTestId("assistant-text");
      await text.filter({ hasText: "Answer to the first question." }).waitFor({ timeout: 60_000 });
      await page.getByTestId("send-button").waitFor();
      assert.equal(await page.getByTestId("branch-switcher").count(), 0, "one version: no switcher");

      await human.getByRole("button", { name: "Edit message" }).click();
      const box = human.getByRole("textbox", { name: "Edited message" });
      assert.equal(await box.inputValue(), "r-edit the first question");
      await box.fill("r-edit the second question");
      await shot(page, "r-editing");
      await human.getByRole("button", { name: "Save", exact: true }).click();
      // The edited message shows at once and a new answer streams in place of the old one.
      await page.getByTestId("stop-button").waitFor();
      await until(async () => ((await text.first().textContent()) ?? "").includes("Answer to the second"), {
        timeout: 60_000,
        message: "the new answer to stream",
      });
      assert.deepEqual(await human.locator(".bubble").allTextContents(), ["r-edit the second question"]);
      await text.filter({ hasText: "streamed in small pieces." }).waitFor({ timeout: 60_000 });
      await page.getByTestId("send-button").waitFor();
      assert.equal(await text.count(), 1, "the old answer is not shown with the new one");
      const edited = await stack.modelRequestFor("r-edit the second question");
      assert.ok(!JSON.stringify(edited.messages).includes("first question"), "the model saw the edited message only");

      const switcher = human.getByTestId("branch-switcher");
      await untilCount(switcher, "2 / 2");
      const previous = switcher.getByRole("button", { name: "Previous version" });
      const next = switcher.getByRole("button", { name: "Next version" });
      assert.equal(await next.isDisabled(), true, "the newest version is shown");
      await shot(page, "r-edited");
      await previous.click();
      await untilCount(switcher, "1 / 2");
      await text.filter({ hasText: "Answer to the first question." }).waitFor();
      assert.deepEqual(await human.locator(".bubble").allTextContents(), ["r-edit the first question"]);
      assert.equal(await text.count(), 1);
      assert.equal(await previous.isDisabled(), true);
      await shot(page, "r-original-version");
      await next.click();
      await untilCount(switcher, "2 / 2");
      await text.filter({ hasText: "Answer to the second question" }).waitFor();
      assert.deepEqual(await human.locator(".bubble").allTextContents(), ["r-edit the second question"]);

      // The versions are the server's: a reload shows the newest, and the older one is still there.
      await page.reload();
      await untilCount(switcher, "2 / 2");
      assert.deepEqual(await human.locator(".bubble").allTextContents(), ["r-edit the second question"]);
      await text.filter({ hasText: "Answer to the second question" }).waitFor();
      await previous.click();
      await untilCount(switcher, "1 / 2");
      await text.filter({ hasText: "Answer to the first question." }).waitFor();
      assert.deepEqual(await human.locator(".bubble").allTextContents(), ["r-edit the first question"]);
      const runs = await stack.runsOf(threadId);
      assert.deepEqual(runs.map((r) => r.status), ["success", "success"]);
      s.assertNoErrors();
    } finally {
      await s.close();
    }
  });

  it("s. Regenerate streams a new answer as another version of it; ‹ i / n › moves between the answers, also after a reload", { timeout: 120_000 }, async () => {
    // The same request gets the same scripted answer; another agent's instructions get another.
    const other = await stack.api("POST", "/api/assistants", {
      graph_id: "agent",
      name: "Second opinion",
      context: { system_prompt: "Answer as the second opinion." },
    });
    const s = await stack.page();
    try {
      const { page } = s;
      await page.goto("/");
      await sendMessage(page, "s-regenerate this answer");
      const threadId = threadIdOf(page);
      const reply = page.getByRole("article", { name: "Assistant" });
      const text = page.getByTestId("assistant-text");
      await text.filter({ hasText: "The first answer, streamed in small pieces." }).waitFor({ timeout: 60_000 });
      await page.getByTestId("send-button").waitFor();
      assert.equal(await page.getByTestId("branch-switcher").count(), 0, "one version: no switcher");
      const firstId = await lastAnswerId(threadId);
      const requests = async () =>
        (await stack.modelRequests()).filter((r) => !systemOf(r).includes("You write titles") && lastUserOf(r).includes("s-regenerate")).length;
      assert.equal(await requests(), 1);

      // Regenerate with the same agent: the same words, but a new answer.
      await reply.getByRole("button", { name: "Regenerate" }).click();
      await page.getByTestId("stop-button").waitFor();
      await text.filter({ hasText: "The first answer, streamed in small pieces." }).waitFor({ timeout: 60_000 });
      await page.getByTestId("send-button").waitFor();
      const switcher = reply.getByTestId("branch-switcher");
      await untilCount(switcher, "2 / 2");
      assert.equal(await requests(), 2, "the model was asked again");
      const secondId = await lastAnswerId(threadId);
      assert.ok(secondId && secondId !== firstId, `a new answer (${firstId} → ${secondId})`);
      assert.equal(await page.getByTestId("human-message").count(), 1, "the question is not repeated");
      assert.equal(await text.count(), 1);

      // Regenerate with another agent picked: its answer differs, a third version.
      await page.getByTestId("agent-picker").selectOption({ label: "Second opinion" });
      await reply.getByRole("button", { name: "Regenerate" }).click();
      await page.getByTestId("stop-button").waitFor();
      await until(async () => ((await text.first().textContent()) ?? "").includes("The second opinion"), {
        timeout: 60_000,
        message: "the regenerated answer to stream",
      });
      await text.filter({ hasText: "The second opinion, from another agent." }).waitFor({ timeout: 60_000 });
      await page.getByTestId("send-button").waitFor();
      await untilCount(switcher, "3 / 3");
      assert.equal(await text.count(), 1);
      const previous = switcher.getByRole("button", { name: "Previous version" });
      const next = switcher.getByRole("button", { name: "Next version" });
      assert.equal(await next.isDisabled(), true);
      await shot(page, "s-regenerated");
      await previous.click();
      await untilCount(switcher, "2 / 3");
      await text.filter({ hasText: "The first answer, streamed in small pieces." }).waitFor();
      await previous.click();
      await untilCount(switcher, "1 / 3");
      await text.filter({ hasText: "The first answer, streamed in small pieces." }).waitFor();
      assert.equal(await previous.isDisabled(), true);
      assert.equal(await page.getByTestId("human-message").count(), 1);
      await shot(page, "s-first-version");
      await next.click();
      await next.click();
      await untilCount(switcher, "3 / 3");
      await text.filter({ hasText: "The second opinion, from another agent." }).waitFor();

      // After a reload: the newest version, and the others still there.
      await page.reload();
      await untilCount(switcher, "3 / 3");
      await text.filter({ hasText: "The second opinion, from another agent." }).waitFor();
      assert.equal((await stack.api("GET", `/api/threads/${threadId}`)).metadata.assistant_id, other.assistant_id);
      assert.equal(await pickedAgent(page), "Second opinion", "the conversation keeps the agent of its last run");
      await previous.click();
      await untilCount(switcher, "2 / 3");
      await text.filter({ hasText: "The first answer, streamed in small pieces." }).waitFor();
      const runs = await stack.runsOf(threadId);
      assert.deepEqual(runs.map((r) => r.status), ["success", "success", "success"]);
      s.assertNoErrors();
    } finally {
      await s.close();
    }
  });
});
