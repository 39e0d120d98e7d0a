// End-to-end test of the Chinese interface: a browser whose language is zh-CN gets the whole
// UI in Simplified Chinese. After one conversation (mock.yaml's i18n-chat: a tool card, a
// presented file, an answer), every main page is scanned for English left in what people see
// (text, aria-label, title, placeholder, alt); choosing English in Settings switches back at once.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SCREENSHOTS, Stack, screenshot, threadIdOf, until } from "./harness.mjs";

const SHOTS = join(SCREENSHOTS, "i18n");
const stack = new Stack({ screenshots: SHOTS });
const MESSAGE = "i18n-chat：请写下会议纪要";
const TITLE = "会议纪要对话";

/**
 * Regions showing what people or the model wrote, or names from the server's data, which are
 * not the interface's to translate: message bodies, reasoning, tool arguments and output,
 * code, skill/agent/tool descriptions (their authors' words), a file's preview.
 */
const CONTENT = [
  "[data-testid=assistant-text]",
  ".reasoning-text",
  "[data-testid=tool-output]",
  "[data-testid=artifact-view]",
  ".tool-summary",
  ".skill-desc",
  ".agent-desc",
  ".tool-desc",
  "code",
  "pre",
  "kbd",
  "script",
  "style",
  "noscript",
].join(", ");

/** Elements whose `title` shows content (the chosen agent's description, an MCP tool's name). */
const TITLE_CONTENT = ".agent-picker, .tool-title";

/**
 * Words that stay as they are in a Chinese interface: the product's name, the language's own
 * name in the language picker, keyboard keys, and technical terms (formats, protocols)
 * Chinese software keeps in Latin letters. The names of the configured models and skills are
 * added when the stack is up.
 */
const ALLOWED = new Set([
  "Antler",
  "English",
  "Enter",
  "Shift",
  "Esc",
  "Tab",
  "Ctrl",
  "token",
  "tokens",
  "cron",
  "stdio",
  "Markdown",
  "Docker",
  "Git",
  "GitHub",
  // The example skill names of Settings → Secrets' "skills" field ("imagegen, pdf").
  "imagegen",
  "pdf",
]);
/** Names made of several words, kept as a whole. */
const ALLOWED_PHRASES = ["JSON Lines"];

/** The visible texts of the page outside `CONTENT`: text nodes, and the attributes people
 * (or their screen readers) read. Runs in the page. */
function visibleTexts([content, titleContent]) {
  const shown = (el) =>
    el.checkVisibility ? el.checkVisibility({ visibilityProperty: true }) : el.getClientRects().length > 0;
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    const text = node.textContent.trim();
    if (!text || !el || el.closest(content)) continue;
    // A select shows its chosen option only.
    const select = el.closest("select");
    if (select ? !(el.tagName === "OPTION" && el.selected && shown(select)) : !shown(el)) continue;
    out.push({ text, where: el.tagName.toLowerCase() + (el.className ? `.${String(el.className).split(" ")[0]}` : "") });
  }
  for (const el of document.body.querySelectorAll("[aria-label], [title], [placeholder], [alt]")) {
    if (el.closest(content) || !shown(el)) continue;
    for (const attr of ["aria-label", "title", "placeholder", "alt"]) {
      if (attr === "title" && el.matches(titleContent)) continue;
      const text = el.getAttribute(attr)?.trim();
      if (text) out.push({ text, where: `${el.tagName.toLowerCase()}[${attr}]` });
    }
  }
  return out;
}

/** The English words of a text: Latin words of 3+ letters that are not names, addresses,
 * file names, identifiers, acronyms or allowed terms. */
function englishWords(text) {
  const words = [];
  const kept = ALLOWED_PHRASES.reduce((t, phrase) => t.split(phrase).join(" "), text);
  for (const token of kept.split(/[\s,;:!?()[\]{}"“”‘’「」（），。；：！？、·…|<>]+/)) {
    if (!token) continue;
    // e-mail, URL, path, file name ("SKILL.md", "i18n-notes.md"), identifier (snake_case,
    // kebab-case, with digits), an acronym ("MCP", "JSON"), a unit ("KB").
    if (/@|:\/\/|\/|\.[A-Za-z0-9]{1,8}$|_|\d|^[a-z0-9]+(-[a-z0-9]+)+$|^[A-Z]{2,6}s?$/.test(token)) continue;
    for (const word of token.match(/[A-Za-z]{3,}/g) ?? []) {
      if (!ALLOWED.has(word)) words.push(word);
    }
  }
  return words;
}

/** The English left on `page`, as "text (where)" lines. */
async function englishOn(page) {
  const texts = await page.evaluate(visibleTexts, [CONTENT, TITLE_CONTENT]);
  const found = new Set();
  for (const { text, where } of texts) {
    if (englishWords(text).length) found.add(`${JSON.stringify(text.slice(0, 120))} (${where})`);
  }
  return [...found];
}

describe("the Chinese interface", { concurrency: false }, () => {
  before(async () => {
    await stack.start();
    console.log(`# server ${stack.baseUrl}, model ${stack.mockUrl}`);
    // Model and skill names are names: "mock", "imagegen" (names of several words, such as
    // "skill-creator", are identifiers the scan skips anyway).
    const { models } = await stack.api("GET", "/api/models");
    const { skills } = await stack.api("GET", "/api/skills");
    for (const name of [...models.flatMap((m) => [m.name, m.model]), ...skills.map((k) => k.name)]) {
      if (/^[A-Za-z]+$/.test(String(name))) ALLOWED.add(String(name));
    }
  }, { timeout: 180_000 });

  after(async () => {
    await stack.stop();
  }, { timeout: 120_000 });

  it("i. shows every main page in Chinese, with no English left", { timeout: 300_000 }, async () => {
    const s = await stack.page({ locale: "zh-CN" });
    const report = {};
    try {
      const { page } = s;
      await page.goto("/");
      await page.getByTestId("model-label").waitFor();
      assert.equal(await page.evaluate(() => document.documentElement.lang), "zh-CN");
      // The new chat, before anything is said.
      report["new chat (/)"] = await englishOn(page);
      await screenshot(page, "i-new-chat", SHOTS);

      // One conversation: a tool card, a presented file and an answer.
      const box = page.locator(".composer textarea").first();
      await box.fill(MESSAGE);
      await box.press("Enter");
      await page.waitForURL(/\/threads\/[^/]+/);
      const threadId = threadIdOf(page);
      await page.getByTestId("assistant-text").filter({ hasText: "I18N-DONE" }).waitFor({ timeout: 90_000 });
      await until(async () => (await stack.runsOf(threadId)).every((r) => r.status !== "running" && r.status !== "pending"), {
        message: "the run to end",
      });
      // The generated title is the scripted model's English: name the conversation in Chinese.
      await stack.api("PATCH", `/api/threads/${encodeURIComponent(threadId)}`, { metadata: { title: TITLE } });
      await page.reload();
      await page.getByTestId("assistant-text").filter({ hasText: "I18N-DONE" }).waitFor();
      await page.getByTestId("tool-card").first().waitFor();
      await page.getByTestId("thread-item").filter({ hasText: TITLE }).waitFor();
      report[`chat (/threads/${threadId})`] = await englishOn(page);
      await screenshot(page, "i-chat", SHOTS);

      const pages = [
        [`/threads/${threadId}/artifacts`, "artifact-list"],
        ["/scheduled", null],
        ["/settings/skills", "skill-row"],
        ["/settings/agents", "agent-row"],
        ["/settings/tools", null],
        ["/settings/memory", null],
        ["/settings/account", "language-select"],
        ["/settings/users", "user-row"],
        ["/settings/secrets", null],
        ["/admin/runs", "run-row"],
      ];
      for (const [path, ready] of pages) {
        await page.goto(path);
        if (ready) await page.getByTestId(ready).first().waitFor();
        // Loading states end (no spinner left) before the page is read.
        await until(async () => (await page.locator(".spinner, [aria-busy=true]").count()) === 0, {
          message: `${path} to load`,
        }).catch(() => undefined);
        report[path] = await englishOn(page);
        await screenshot(page, `i${path.replace(/\//g, "-")}`, SHOTS);
      }

      // A run's detail in the console.
      await page.goto("/admin/runs");
      await page.getByTestId("run-row").first().getByRole("link").first().click();
      await page.waitForURL(/\/admin\/runs\/[^/]+$/);
      await page.getByTestId("detail-status").waitFor();
      report["/admin/runs/{run}"] = await englishOn(page);
      await screenshot(page, "i-admin-run", SHOTS);
      s.assertNoErrors();
    } finally {
      await s.close();
    }

    // The sign-in page, signed out.
    const out = await stack.page({ locale: "zh-CN", account: null });
    try {
      await out.page.goto("/");
      await out.page.locator("input[type=password]").waitFor();
      report["sign-in"] = await englishOn(out.page);
      await screenshot(out.page, "i-sign-in", SHOTS);
    } finally {
      await out.close();
    }

    const left = Object.entries(report).filter(([, found]) => found.length);
    assert.deepEqual(
      left,
      [],
      `English left in the Chinese interface:\n${left.map(([where, found]) => `${where}:\n  ${found.join("\n  ")}`).join("\n")}`,
    );
  });

  it("ii. switches back to English at once when English is chosen in Settings", { timeout: 120_000 }, async () => {
    const s = await stack.page({ locale: "zh-CN" });
    try {
      const { page } = s;
      await page.goto("/settings/account");
      const select = page.getByTestId("language-select");
      await select.waitFor();
      const heading = page.locator("#language-title");
      assert.equal(await heading.textContent(), "语言");
      const nav = page.locator("nav.topnav");
      assert.match(await nav.innerText(), /[\u4e00-\u9fff]/, "the navigation starts in Chinese");

      await select.selectOption("en");
      // No reload: the page that is open changes language.
      await until(async () => (await heading.textContent()) === "Language", { message: "the heading in English" });
      assert.equal(await page.evaluate(() => document.documentElement.lang), "en");
      assert.doesNotMatch(await nav.innerText(), /[\u4e00-\u9fff]/, "the navigation is in English");
      assert.deepEqual(
        (await page.evaluate(visibleTexts, [CONTENT, TITLE_CONTENT])).filter(({ text }) => /[\u4e00-\u9fff]/.test(text) && text !== "简体中文"),
        [],
        "no Chinese left on the page",
      );
      // The choice is kept: a reload stays in English although the browser prefers Chinese.
      await page.reload();
      await until(async () => (await page.locator("#language-title").textContent()) === "Language", {
        message: "English after a reload",
      });
      s.assertNoErrors();
    } finally {
      await s.close();
    }
  });
});
