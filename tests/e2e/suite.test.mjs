// End-to-end tests of the web UI against the real server, the Docker sandbox and the scripted
// model. One server and one model for the whole suite; every scenario uses new threads.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { strToU8, zipSync } from "fflate";
import { ADMIN, SCREENSHOTS, Stack, lastUserOf, screenshot, sendMessage, threadIdOf, until } from "./harness.mjs";

const stack = new Stack();
const shots = [];
let skillThread;

async function shot(page, name) {
  shots.push(await screenshot(page, name));
}

/** Switches the emulated system colour scheme and waits for the UI to follow it. */
async function setScheme(page, scheme) {
  await page.emulateMedia({ colorScheme: scheme });
  await until(async () => (await page.evaluate(() => document.documentElement.dataset.theme)) === scheme, {
    message: `the page to follow the system's ${scheme} scheme`,
  });
}

/** Drops a file on an element the way a browser does (dragenter, dragover, drop). */
async function dropFile(page, target, name, bytes, type = "application/octet-stream") {
  const dataTransfer = await page.evaluateHandle(
    ({ name, data, type }) => {
      const dt = new DataTransfer();
      dt.items.add(new File([new Uint8Array(data)], name, { type }));
      return dt;
    },
    { name, data: Array.from(bytes), type },
  );
  await target.dispatchEvent("dragenter", { dataTransfer });
  await target.dispatchEvent("dragover", { dataTransfer });
  await target.dispatchEvent("drop", { dataTransfer });
}

function skillArchive(name, extra = {}) {
  return zipSync({
    [`${name}/SKILL.md`]: strToU8(
      `---\nname: ${name}\ndescription: Uploaded from the settings page in the end-to-end test. Use when testing uploads.\n---\n\n# ${name}\n\nDo the uploaded thing.\n`,
    ),
    [`${name}/scripts/run.py`]: strToU8("print('hello')\n"),
    ...extra,
  });
}

describe("web UI end to end", { concurrency: false }, () => {
  before(async () => {
    await stack.start();
    console.log(`# server ${stack.baseUrl}, model ${stack.mockUrl}`);
  }, { timeout: 180_000 });

  after(async () => {
    const started = Date.now();
    await stack.stop();
    console.log(`# stopped the server in ${Date.now() - started} ms`);
    console.log(`# screenshots (${shots.length}) in ${SCREENSHOTS}`);
  }, { timeout: 120_000 });

  it("a. the agent builds a skill with skill-creator in the sandbox; the person installs it from the files panel", { timeout: 180_000 }, async () => {
    const s = await stack.page();
    const { page } = s;
    await page.goto("/");
    await page.getByTestId("model-label").filter({ hasText: "scripted demo" }).waitFor();
    await page.getByTestId("welcome").waitFor();
    await sendMessage(page, "Please create the e2e-greeter skill with skill-creator");
    skillThread = threadIdOf(page);

    const final = page.getByTestId("assistant-text").filter({ hasText: "is packaged" });
    await final.waitFor({ timeout: 120_000 });
    await final.locator("table").waitFor();
    const tools = await page.getByTestId("tool-card").evaluateAll((els) => els.map((e) => e.dataset.tool));
    assert.deepEqual(tools, ["read_file", "write_file", "bash", "present_files"]);

    // The skill was read in the sandbox: its SKILL.md is the read_file result.
    const read = page.locator('[data-testid=tool-card][data-tool=read_file]');
    await read.locator(".tool-head").click();
    await read.getByText("name: skill-creator").first().waitFor();
    // The command ran in Docker: output and exit code.
    const bash = page.locator('[data-testid=tool-card][data-tool=bash]');
    await bash.locator(".tool-head").click();
    await bash.getByText("exit code 0").waitFor();
    await bash.getByTestId("tool-output").filter({ hasText: "Packaged /mnt/user-data/outputs/e2e-greeter.skill" }).waitFor();
    await page.getByTestId("reasoning").filter({ hasText: "Reasoning" }).waitFor();
    await until(async () => (await page.getByTestId("chat-title").textContent()) === "Greeter skill", {
      message: "the generated title",
    });
    await page.locator('[data-testid=thread-item]', { hasText: "Greeter skill" }).waitFor();
    await read.locator(".tool-head").click();
    await bash.locator(".tool-head").click();
    await page.getByTestId("messages").evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await shot(page, "chat-light");
    await setScheme(page, "dark");
    await shot(page, "chat-dark");

    // The presented .skill opens in the files panel: members, SKILL.md, validation.
    await page.getByTestId("file-chip").filter({ hasText: "e2e-greeter.skill" }).click();
    const panel = page.getByTestId("artifact-panel");
    await panel.getByTestId("skill-preview").waitFor();
    await panel.getByTestId("archive-valid").waitFor();
    await panel.getByText("e2e-greeter/SKILL.md").waitFor();
    await panel.getByRole("heading", { name: "E2E Greeter" }).waitFor();
    await panel.getByText("Greet the person by name in one friendly sentence.").waitFor();
    await shot(page, "artifact-panel-dark");
    await setScheme(page, "light");
    await shot(page, "artifact-panel-light");

    await panel.getByTestId("install-skill").click();
    const toast = page.getByTestId("toast").filter({ hasText: "Installed “e2e-greeter”" });
    await toast.waitFor();
    await panel.getByText("Installed and enabled.").waitFor();
    await toast.getByRole("link", { name: "View in Settings" }).click();
    await page.waitForURL(/\/settings\/skills/);
    const row = page.locator('[data-testid=skill-row][data-skill="e2e-greeter"]');
    await row.waitFor();
    assert.equal(await row.getByRole("switch").getAttribute("aria-checked"), "true");
    assert.match(await page.getByRole("tab", { selected: true }).textContent(), /Custom/);
    const { skills } = await stack.api("GET", "/api/skills");
    assert.ok(skills.some((k) => k.name === "e2e-greeter" && k.category === "custom" && k.enabled));
    await shot(page, "settings-light");
    await setScheme(page, "dark");
    await shot(page, "settings-dark");

    // The files page of the thread.
    await page.goto(`/threads/${skillThread}/artifacts?file=${encodeURIComponent("/mnt/user-data/outputs/e2e-greeter.skill")}`);
    await page.getByTestId("skill-preview").waitFor();
    await page.getByRole("heading", { name: "E2E Greeter" }).waitFor();
    await shot(page, "artifacts-page-dark");
    await setScheme(page, "light");
    await shot(page, "artifacts-page-light");
    s.assertNoErrors();
    await s.close();
  });

  it("b. a skill switched off in Settings is not in the next run's system prompt", { timeout: 120_000 }, async () => {
    const location = "/mnt/skills/public/csv-insights/SKILL.md";
    const s = await stack.page();
    const { page } = s;
    await page.goto("/");
    await sendMessage(page, "b-check before");
    await page.getByTestId("assistant-text").filter({ hasText: "Checked the skills." }).waitFor({ timeout: 60_000 });
    assert.ok((await stack.systemPromptFor("b-check before")).includes(location), "enabled: listed in the prompt");

    await page.getByRole("link", { name: "Skills" }).click();
    const toggle = page.getByRole("switch", { name: "Enable csv-insights" });
    assert.equal(await toggle.getAttribute("aria-checked"), "true");
    const put = page.waitForResponse((r) => r.url().endsWith("/api/skills/csv-insights") && r.request().method() === "PUT");
    await toggle.click();
    assert.equal((await put).status(), 200);
    await until(async () => (await toggle.getAttribute("aria-checked")) === "false", { message: "the switch to turn off" });
    await page.reload();
    await until(async () => (await page.getByRole("switch", { name: "Enable csv-insights" }).getAttribute("aria-checked")) === "false", {
      message: "the state to persist",
    });

    await page.goto("/");
    await sendMessage(page, "b-check after");
    await page.getByTestId("assistant-text").filter({ hasText: "Checked the skills." }).waitFor({ timeout: 60_000 });
    const system = await stack.systemPromptFor("b-check after");
    assert.ok(!system.includes(location), "disabled: gone from the prompt");
    assert.ok(system.includes("/mnt/skills/public/skill-creator/SKILL.md"), "the others stay");
    await stack.api("PUT", "/api/skills/csv-insights", { enabled: true, category: "public" });
    s.assertNoErrors();
    await s.close();
  });

  it("n. typing / offers the skills; the keyboard picks one and the run gets its instructions", { timeout: 120_000 }, async () => {
    const s = await stack.page();
    const { page } = s;
    await page.goto("/");
    const box = page.getByRole("textbox", { name: "Message" });
    await box.fill("/csv");
    const menu = page.getByRole("listbox", { name: "Skills" });
    await menu.waitFor();
    const option = menu.getByRole("option", { name: /csv-insights/ });
    assert.equal(await option.getAttribute("aria-selected"), "true");
    await shot(page, "n-slash-menu");
    await box.press("Enter");
    assert.equal(await box.inputValue(), "/csv-insights ");
    assert.equal(await menu.count(), 0, "the menu closes once a skill is picked");
    await box.pressSequentially("sales.csv n-slash");
    await box.press("Enter");
    await page.waitForURL(/\/threads\/[^/]+/);
    await page.getByTestId("assistant-text").filter({ hasText: "Activated by hand." }).waitFor({ timeout: 60_000 });
    const system = await stack.systemPromptFor("n-slash");
    assert.ok(system.includes('<activated_skill name="csv-insights"'), "the run got the skill's instructions");
    s.assertNoErrors();
    await s.close();
  });

  it("c. Settings installs a dropped .skill after a preview, offers Replace existing on 409, and lists an invalid archive's findings", { timeout: 120_000 }, async () => {
    const s = await stack.page();
    const { page } = s;
    s.allow(/status of 409/); // the expected "already installed" answer
    await page.goto("/settings/skills?tab=custom");
    const archive = skillArchive("c-uploaded");

    await dropFile(page, page.locator("main"), "c-uploaded.skill", archive, "application/zip");
    const dialog = page.getByRole("dialog", { name: "Install a skill from a file" });
    await dialog.getByTestId("archive-valid").waitFor();
    await dialog.getByText("c-uploaded/scripts/run.py").waitFor();
    await dialog.getByTestId("confirm-install").click();
    await page.getByTestId("toast").filter({ hasText: "Installed “c-uploaded”" }).waitFor();
    const row = page.locator('[data-testid=skill-row][data-skill="c-uploaded"]');
    await row.waitFor();
    assert.equal(await row.getByRole("switch").getAttribute("aria-checked"), "true");

    // The same archive again: 409, then Replace existing.
    await page.getByRole("button", { name: "Install from file" }).click();
    await dialog.getByTestId("skill-file-input").setInputFiles({ name: "c-uploaded.skill", mimeType: "application/zip", buffer: Buffer.from(archive) });
    await dialog.getByTestId("archive-valid").waitFor();
    const conflict = page.waitForResponse((r) => r.url().endsWith("/api/skills/upload"));
    await dialog.getByTestId("confirm-install").click();
    assert.equal((await conflict).status(), 409);
    await dialog.getByTestId("skill-exists").waitFor();
    const replaced = page.waitForResponse((r) => r.url().endsWith("/api/skills/upload"));
    await dialog.getByTestId("replace-existing").click();
    assert.equal((await replaced).status(), 200);
    await page.getByTestId("toast").filter({ hasText: "replaced the previous version" }).waitFor();

    // An invalid archive: its findings, and no way to install it.
    const invalid = zipSync({
      "bad-skill/SKILL.md": strToU8("---\nname: .bad-skill\ndescription: broken\n---\n# Bad\n"),
      "bad-skill/../../evil.sh": strToU8("echo evil\n"),
    });
    await page.getByRole("button", { name: "Install from file" }).click();
    await dialog.getByTestId("skill-file-input").setInputFiles({ name: "bad.skill", mimeType: "application/zip", buffer: Buffer.from(invalid) });
    await dialog.getByTestId("archive-invalid").waitFor();
    const findings = dialog.getByTestId("findings");
    await findings.getByText("unsafe-path").waitFor();
    await findings.getByText("name-format").waitFor();
    assert.equal(await dialog.getByTestId("confirm-install").isDisabled(), true);
    await shot(page, "settings-install-invalid-light");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    const { skills } = await stack.api("GET", "/api/skills");
    assert.ok(!skills.some((k) => k.name === ".bad-skill"));
    s.assertNoErrors();
    await s.close();
  });

  it("d. Stop during a streaming answer shows it stopped and interrupts the run", { timeout: 120_000 }, async () => {
    const s = await stack.page();
    const { page } = s;
    await page.goto("/");
    await sendMessage(page, "stream slowly please");
    const threadId = threadIdOf(page);
    const text = page.getByTestId("assistant-text");
    await until(async () => ((await text.first().textContent()) ?? "").includes("streams slowly"), {
      timeout: 60_000,
      message: "the answer to start streaming",
    });
    await shot(page, "chat-streaming-light");
    const cancel = page.waitForResponse((r) => /\/runs\/[^/]+\/cancel/.test(r.url()));
    await page.getByTestId("stop-button").click();
    assert.equal((await cancel).status(), 200);
    await page.getByTestId("run-stopped").waitFor();
    await page.getByTestId("send-button").waitFor();
    await shot(page, "chat-stopped-light");
    assert.equal(await page.getByTestId("run-error").count(), 0, "a stop is not an error");
    const runs = await stack.runsOf(threadId);
    assert.equal(runs.length, 1);
    assert.equal(runs[0].status, "interrupted");
    assert.equal(runs[0].stop_reason, "cancelled");
    assert.ok(!((await text.first().textContent()) ?? "").includes("THE-END-MARKER"), "the answer was cut short");
    // What streamed before the stop is kept by the server: it is still there after a reload.
    await page.reload();
    await until(async () => ((await text.first().textContent()) ?? "").includes("streams slowly"), {
      timeout: 30_000,
      message: "the stopped answer after a reload",
    });
    s.assertNoErrors();
    await s.close();
  });

  it("e. a reload during a run joins it again and shows the full answer", { timeout: 120_000 }, async () => {
    const s = await stack.page();
    const { page } = s;
    await page.goto("/");
    await sendMessage(page, "reload test please");
    const threadId = threadIdOf(page);
    const text = page.getByTestId("assistant-text");
    await until(async () => ((await text.first().textContent()) ?? "").includes("First part"), {
      timeout: 60_000,
      message: "the answer to start streaming",
    });
    const [running] = await stack.api("GET", `/api/threads/${threadId}/runs?status=running`);
    assert.ok(running, "the run is still going before the reload");
    const joined = page.waitForRequest((r) => r.method() === "GET" && r.url().includes(`/runs/${running.run_id}/stream`));
    await page.reload();
    await joined;
    await page.getByTestId("assistant-text").filter({ hasText: "RELOAD-COMPLETE" }).waitFor({ timeout: 60_000 });
    assert.equal(await page.getByTestId("assistant-text").count(), 1, "one answer, not a duplicate");
    assert.equal(await page.getByTestId("human-message").count(), 1);
    // The run ends after the title is generated, just after the last words.
    await until(async () => (await stack.runsOf(threadId))[0]?.status === "success", { message: "the run to succeed" });
    s.assertNoErrors();
    await s.close();
  });

  it("f. uploads by drag and drop, a clarification answered with an option, and a failed run with Retry", { timeout: 120_000 }, async () => {
    const s = await stack.page();
    const { page } = s;
    await page.goto("/");
    // The chat takes drops once the app has loaded (signed in, the model known).
    await page.getByTestId("model-label").waitFor();
    await dropFile(page, page.locator("main"), "data.csv", strToU8("city,people\nOslo,709000\n\"Bergen, NO\",291000\n"), "text/csv");
    await page.waitForURL(/\/threads\//);
    await page.locator(".attachment-done", { hasText: "data.csv" }).waitFor();
    await sendMessage(page, "export the report");
    const card = page.getByTestId("clarification");
    await card.getByText("Which format should the export use?").waitFor({ timeout: 60_000 });
    await page.getByTestId("human-message").getByTestId("file-chip").filter({ hasText: "data.csv" }).click();
    const panel = page.getByTestId("artifact-panel");
    await panel.locator("table").getByText("Bergen, NO").waitFor();
    await panel.getByRole("button", { name: "Close the files panel" }).click();
    await card.getByRole("button", { name: "JSON" }).click();
    await page.getByTestId("assistant-text").filter({ hasText: "Exporting as JSON." }).waitFor({ timeout: 60_000 });
    assert.equal(await card.getByRole("button", { name: "CSV" }).isDisabled(), true, "answered");
    assert.deepEqual(await page.getByTestId("human-message").locator(".bubble").allTextContents(), ["export the report", "JSON"]);

    await page.getByRole("link", { name: "New chat", exact: true }).click();
    await page.getByTestId("welcome").waitFor();
    await sendMessage(page, "break the stream");
    const threadId = threadIdOf(page);
    const error = page.getByTestId("run-error");
    await error.waitFor({ timeout: 90_000 });
    await error.getByRole("button", { name: "Retry" }).click();
    await until(async () => (await stack.runsOf(threadId)).length === 2, { timeout: 30_000, message: "a second run" });
    await error.waitFor({ timeout: 90_000 });
    // Retry ran the unanswered message again instead of sending it twice.
    assert.deepEqual(await page.getByTestId("human-message").locator(".bubble").allTextContents(), ["break the stream"]);
    s.assertNoErrors();
    await s.close();
  });

  it("g. conversations are renamed and deleted; skill details, search, delete and reload in Settings", { timeout: 90_000 }, async () => {
    const s = await stack.page();
    const { page } = s;
    await page.goto("/");
    await sendMessage(page, "h rename me");
    await page.getByTestId("assistant-text").filter({ hasText: "ok" }).waitFor({ timeout: 60_000 });
    const threadId = threadIdOf(page);
    const item = page.locator(`[data-testid=thread-item][data-thread-id="${threadId}"]`);
    await item.getByText("E2E conversation").waitFor();
    await item.getByRole("button", { name: /^Rename/ }).click();
    const input = item.getByRole("textbox", { name: "Conversation title" });
    await input.fill("Renamed by e2e");
    await input.press("Enter");
    await item.getByText("Renamed by e2e").waitFor();
    await until(async () => (await page.getByTestId("chat-title").textContent()) === "Renamed by e2e", { message: "the header to follow" });
    assert.equal((await stack.api("GET", `/api/threads/${threadId}`)).metadata.title, "Renamed by e2e");

    await item.getByRole("button", { name: /^Delete/ }).click();
    const confirm = page.getByRole("alertdialog", { name: "Delete conversation?" });
    await confirm.getByText("Renamed by e2e").waitFor();
    await confirm.getByRole("button", { name: "Delete" }).click();
    await page.waitForURL((url) => url.pathname === "/");
    await item.waitFor({ state: "detached" });
    await stack.api("GET", `/api/threads/${threadId}`, undefined, 404);

    await page.getByRole("link", { name: "Skills" }).click();
    await page.getByRole("button", { name: "Details of skill-creator" }).click();
    const drawer = page.getByRole("dialog", { name: "skill-creator" });
    await drawer.getByRole("heading", { name: "Skill Creator" }).waitFor();
    await drawer.getByText("scripts/package_skill.py", { exact: true }).waitFor();
    await shot(page, "skill-details-light");
    await page.keyboard.press("Escape");
    await drawer.waitFor({ state: "hidden" });

    await page.getByRole("searchbox", { name: "Search skills" }).fill("profiles");
    await until(async () => (await page.getByTestId("skill-row").count()) === 1, { message: "the search to filter" });
    await page.locator('[data-testid=skill-row][data-skill="csv-insights"]').waitFor();
    await page.getByRole("searchbox", { name: "Search skills" }).fill("");

    await page.getByRole("tab", { name: /Custom/ }).click();
    await page.getByRole("button", { name: "Delete c-uploaded" }).click();
    const dialog = page.getByRole("alertdialog", { name: "Delete skill?" });
    await dialog.getByRole("button", { name: "Delete" }).click();
    await page.locator('[data-testid=skill-row][data-skill="c-uploaded"]').waitFor({ state: "detached" });
    const { skills } = await stack.api("GET", "/api/skills");
    assert.ok(!skills.some((k) => k.name === "c-uploaded"));
    await page.getByRole("button", { name: "Reload" }).click();
    await page.getByTestId("toast").filter({ hasText: "Reloaded" }).waitFor();
    s.assertNoErrors();
    await s.close();
  });

  it("h. previews of Markdown, code, JSON, an image and sandboxed HTML, with sizes, dates and Download; newest conversation first", { timeout: 90_000 }, async () => {
    const older = await stack.api("POST", "/api/threads", { metadata: { title: "Older conversation" } });
    const { thread_id: id } = await stack.api("POST", "/api/threads", { metadata: { title: "Previews" } });
    const pixel = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64");
    // The page reports whether it shares the app's origin (a sandbox without allow-same-origin gives it an opaque one).
    const html = '<!doctype html><p id="result">pending</p><script>document.getElementById("result").textContent = window.origin === "null" ? "isolated" : "same-origin " + window.origin;</script>';
    const files = {
      "notes.md": ["# Weekly notes\n\n- shipped the previews\n", "text/markdown"],
      "script.py": ["def answer():\n    return 42\n", "text/x-python"],
      "data.json": ['{"cities": [{"city": "Oslo", "people": 709000}]}', "application/json"],
      "pixel.png": [pixel, "image/png"],
      "page.html": [html, "text/html"],
    };
    const form = new FormData();
    for (const [name, [content, type]] of Object.entries(files)) form.append("files", new Blob([content], { type }), name);
    const uploaded = await fetch(`${stack.baseUrl}/api/threads/${id}/uploads`, {
      method: "POST",
      body: form,
      headers: { authorization: `Bearer ${stack.token}` },
    });
    assert.equal(uploaded.status, 200, await uploaded.text());

    const s = await stack.page();
    const { page } = s;
    await page.goto(`/threads/${id}/artifacts`);
    const rows = page.getByTestId("artifact-row");
    await until(async () => (await rows.count()) === 5, { message: "five files listed" });
    const meta = await rows.filter({ hasText: "notes.md" }).locator(".artifact-meta").textContent();
    assert.match(meta, /^\d+ B · \S/, "size and date");
    const view = page.getByTestId("artifact-view");

    await rows.filter({ hasText: "notes.md" }).click();
    await view.locator("h1", { hasText: "Weekly notes" }).waitFor();
    const href = await view.getByRole("link", { name: "Download" }).getAttribute("href");
    const download = await fetch(new URL(href, stack.baseUrl), { headers: { authorization: `Bearer ${stack.token}` } });
    assert.match(download.headers.get("content-disposition") ?? "", /^attachment; filename="notes.md"/);

    await rows.filter({ hasText: "script.py" }).click();
    await view.locator(".hljs-keyword", { hasText: "def" }).waitFor();

    await rows.filter({ hasText: "data.json" }).click();
    // Two levels open; deeper ones unfold on a click.
    await view.locator("summary", { hasText: "cities:" }).waitFor();
    await view.locator("summary", { hasText: "0:" }).click();
    await view.getByText('"Oslo"').waitFor();
    assert.equal(await view.getByRole("button", { name: "Tree" }).getAttribute("aria-pressed"), "true");
    await view.getByRole("button", { name: "Pretty" }).click();
    await view.locator("code", { hasText: '"people": 709000' }).waitFor();

    await rows.filter({ hasText: "pixel.png" }).click();
    const img = view.locator("img");
    await until(async () => img.evaluate((el) => el.complete && el.naturalWidth === 1), { message: "the image to load" });

    await rows.filter({ hasText: "page.html" }).click();
    const frame = view.locator("iframe.html-frame");
    assert.equal(await frame.getAttribute("sandbox"), "allow-scripts", "scripts may run, same-origin never");
    await page.frameLocator("iframe.html-frame").locator("#result", { hasText: "isolated" }).waitFor();
    await shot(page, "artifact-previews-light");

    await page.goto("/");
    const items = page.getByTestId("thread-item");
    await items.first().waitFor();
    const order = await items.evaluateAll((els) => els.map((el) => el.dataset.threadId));
    assert.ok(order.indexOf(id) < order.indexOf(older.thread_id), `newest first: ${order}`);
    assert.equal(order[0], id);
    s.assertNoErrors();
    await s.close();
  });

  it("i. phone width, keyboard and the theme toggle", { timeout: 60_000 }, async () => {
    assert.ok(skillThread, "needs the conversation and the skill of scenario a");
    const s = await stack.page({ width: 390, height: 844 });
    const { page } = s;
    await page.goto(`/threads/${skillThread}`);
    await page.getByTestId("assistant-text").filter({ hasText: "is packaged" }).waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `no horizontal scrolling (${overflow}px)`);
    await shot(page, "chat-phone-light");
    await page.getByRole("button", { name: "Open conversations" }).click();
    await page.locator("#sidebar").getByText("Greeter skill").waitFor();
    await until(async () => (await page.locator("#sidebar").boundingBox())?.x === 0, { message: "the sidebar to slide in" });
    await shot(page, "sidebar-phone-light");
    await page.keyboard.press("Escape");
    await page.getByRole("button", { name: "Open conversations" }).waitFor();

    // The theme toggle cycles system → light → dark and remembers the choice.
    const toggle = page.getByTestId("theme-toggle");
    assert.equal(await toggle.getAttribute("data-theme-pref"), "system");
    await toggle.click();
    await toggle.click();
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), "dark");
    await page.reload();
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), "dark");
    await page.getByTestId("assistant-text").filter({ hasText: "is packaged" }).waitFor();
    await shot(page, "chat-phone-dark");

    // Keyboard: arrow keys move between the tabs, Space flips a switch (and flips it back).
    await page.goto("/settings/skills");
    const firstTab = page.getByRole("tab", { name: /Public/ });
    await firstTab.focus();
    await page.keyboard.press("ArrowRight");
    await until(async () => (await page.getByRole("tab", { name: /Custom/ }).getAttribute("aria-selected")) === "true", {
      message: "arrow keys to move between tabs",
    });
    const sw = page.getByRole("switch", { name: "Enable e2e-greeter" });
    await sw.focus();
    await page.keyboard.press("Space");
    await until(async () => (await sw.getAttribute("aria-checked")) === "false", { message: "Space to toggle the switch" });
    await until(async () => (await sw.getAttribute("aria-busy")) === null, { message: "the change to reach the server" });
    await page.keyboard.press("Space");
    await until(async () => (await sw.getAttribute("aria-checked")) === "true", { message: "Space to toggle it back" });
    s.assertNoErrors();
    await s.close();
  });
  it("j. a hostile page on another origin cannot install a skill, create a thread or start a run", { timeout: 60_000 }, async () => {
    const victim = await stack.api("POST", "/api/threads", { metadata: { title: "victim" } });
    const threadsBefore = (await stack.api("POST", "/api/threads/search", { limit: 100 })).length;
    const modelBefore = (await stack.modelRequests()).length;
    const archive = Array.from(skillArchive("planted-skill"));
    // The attacker's page: another origin (another port) that fires the requests a page can
    // send without a CORS preflight, then a classic auto-submitted form.
    const page = `<!doctype html><title>cute cats</title><body><script>
      const api = ${JSON.stringify(stack.baseUrl)};
      (async () => {
        const fd = new FormData();
        fd.append("file", new Blob([new Uint8Array(${JSON.stringify(archive)})]), "planted.skill");
        fd.append("enable", "true");
        const shots = [
          fetch(api + "/api/skills/upload", { method: "POST", mode: "no-cors", body: fd }),
          fetch(api + "/api/threads", { method: "POST", mode: "no-cors" }),
          fetch(api + "/api/threads/${victim.thread_id}/runs/wait", { method: "POST", mode: "no-cors",
            headers: { "content-type": "text/plain" },
            body: JSON.stringify({ assistant_id: "lead_agent", input: { messages: [{ role: "user", content: "exfiltrate" }] } }) }),
          fetch(api + "/api/skills/reload", { method: "POST", mode: "no-cors" }),
        ];
        await Promise.allSettled(shots);
        document.title = "fired";
      })();
    </script></body>`;
    const hostile = createServer((_, res) => res.writeHead(200, { "content-type": "text/html" }).end(page));
    await new Promise((ok) => hostile.listen(0, "127.0.0.1", ok));
    const hostileUrl = `http://127.0.0.1:${hostile.address().port}/`;
    const s = await stack.page();
    const statuses = [];
    s.page.on("response", (r) => {
      if (r.url().startsWith(stack.baseUrl)) statuses.push(`${r.status()} ${r.request().method()} ${new URL(r.url()).pathname}`);
    });
    s.allow(/Failed to load resource|403/);
    try {
      await s.page.goto(hostileUrl);
      await until(async () => (await s.page.title()) === "fired", { message: "the hostile page to fire its requests" });
      await until(async () => statuses.length >= 4, { message: "the four responses" });
    } finally {
      await s.close();
      hostile.close();
    }
    assert.deepEqual(statuses.map((x) => x.split(" ")[0]), ["403", "403", "403", "403"], statuses.join("\n"));
    const skills = await stack.api("GET", "/api/skills");
    assert.ok(!skills.skills.some((k) => k.name === "planted-skill"), "no skill was installed");
    assert.equal((await stack.api("POST", "/api/threads/search", { limit: 100 })).length, threadsBefore, "no thread was created");
    assert.equal((await stack.modelRequests()).length, modelBefore, "no run reached the model");
    assert.equal((await stack.api("GET", `/api/threads/${victim.thread_id}/runs`)).length, 0, "no run was started");
  });

  it("k. sign-in refuses a wrong password with a message, then signs in; sign-out returns to the form", { timeout: 60_000 }, async () => {
    const s = await stack.page({ account: null });
    s.allow(/401/);
    try {
      const { page } = s;
      await page.goto("/");
      await page.getByRole("heading", { name: "Sign in to Antler" }).waitFor();
      await page.getByLabel("Email").fill(ADMIN.email);
      await page.getByLabel("Password").fill("not-the-password");
      await page.getByRole("button", { name: "Sign in" }).click();
      const error = page.getByTestId("sign-in-error");
      await error.waitFor();
      assert.match(await error.textContent(), /email or password is wrong/);
      await shot(page, "k-sign-in-failed");
      await page.getByLabel("Password").fill(ADMIN.password);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByTestId("account-menu").waitFor();
      assert.match(await page.getByTestId("account-menu").textContent(), /admin@antler\.test/);
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.getByRole("heading", { name: "Sign in to Antler" }).waitFor();
      // The session is gone on the server, not only in the page.
      const me = await page.evaluate(async () => (await fetch("/api/auth/me")).status);
      assert.equal(me, 401);
      s.assertNoErrors();
    } finally {
      await s.close();
    }
  });

  it("l. a second user sees neither the admin's conversations nor one opened by its address", { timeout: 60_000 }, async () => {
    const mine = await stack.api("POST", "/api/threads", { metadata: { title: "admin only" } });
    const bob = { email: "bob@antler.test", password: "bob-password-1" };
    await stack.api("POST", "/api/users", { ...bob, role: "user" });
    const s = await stack.page({ account: bob });
    s.allow(/404/);
    try {
      const { page } = s;
      await page.goto("/");
      await page.getByTestId("account-menu").waitFor();
      assert.equal(await page.locator(`[data-thread-id="${mine.thread_id}"]`).count(), 0);
      await page.goto(`/threads/${mine.thread_id}`);
      await page.getByText("Conversation not found").waitFor();
      assert.equal(await page.getByText("admin only").count(), 0);
      await shot(page, "l-other-users-thread");
      // Bob's own conversation works.
      const bobs = await stack.api("POST", "/api/threads", { metadata: { title: "bob's" } }, 200, await stack.createToken(bob));
      await page.goto(`/threads/${bobs.thread_id}`);
      const box = page.getByRole("textbox", { name: "Message" });
      await until(async () => await box.isEnabled(), { message: "bob's own conversation to open" });
      s.assertNoErrors();
    } finally {
      await s.close();
    }
  });

  it("m. a user sees the shared skills read-only, cannot switch one off, and installs a personal skill only they see", { timeout: 60_000 }, async () => {
    const carol = { email: "carol@antler.test", password: "carol-password-1" };
    await stack.api("POST", "/api/users", { ...carol, role: "user" });
    const s = await stack.page({ account: carol });
    s.allow(/403/);
    try {
      const { page } = s;
      await page.goto("/settings/skills");
      await page.getByTestId("skills-read-only").waitFor();
      const toggle = page.getByRole("switch", { name: "Enable skill-creator" });
      assert.equal(await toggle.isDisabled(), true);
      assert.equal(await page.getByRole("link", { name: "Users" }).count(), 0);
      // Her own install is a personal skill: listed for her, switchable, invisible to others.
      await page.getByRole("button", { name: "Install from file" }).click();
      const dialog = page.getByRole("dialog", { name: "Install a skill from a file" });
      await dialog.getByTestId("install-personal-note").waitFor();
      const archive = zipSync({
        "m-diary/SKILL.md": strToU8("---\nname: m-diary\ndescription: Carol's diary.\n---\n# Diary\n"),
      });
      await dialog.getByTestId("skill-file-input").setInputFiles({ name: "m-diary.skill", mimeType: "application/zip", buffer: Buffer.from(archive) });
      await dialog.getByTestId("archive-valid").waitFor();
      await dialog.getByTestId("confirm-install").click();
      await page.getByTestId("toast").filter({ hasText: "Installed “m-diary”" }).waitFor();
      const row = page.locator('[data-testid=skill-row][data-skill="m-diary"]');
      await row.waitFor();
      assert.equal(await page.getByRole("tab", { name: /Personal/ }).getAttribute("aria-selected"), "true");
      assert.equal(await row.getByRole("switch").isDisabled(), false);
      await row.getByRole("switch").click();
      await until(async () => (await row.getByRole("switch").getAttribute("aria-checked")) === "false", { message: "her switch to turn off" });
      await page.reload();
      await row.waitFor();
      assert.equal(await row.getByRole("switch").getAttribute("aria-checked"), "false", "the change was stored");
      await shot(page, "m-personal-skill");
      const { skills } = await stack.api("GET", "/api/skills");
      assert.ok(!skills.some((k) => k.name === "m-diary"), "the admin does not see carol's skill");
      // Even a request made by hand is refused, and nothing changes.
      const status = await page.evaluate(async () => {
        const csrf = document.cookie.split("; ").find((c) => c.startsWith("antler_csrf="))?.split("=")[1] ?? "";
        const r = await fetch("/api/skills/skill-creator", {
          method: "PUT",
          headers: { "content-type": "application/json", "x-csrf-token": csrf },
          body: JSON.stringify({ enabled: false }),
        });
        return r.status;
      });
      assert.equal(status, 403);
      await shot(page, "m-read-only-skills");
      const skill = await stack.api("GET", "/api/skills/skill-creator");
      assert.equal(skill.enabled, true);
      s.assertNoErrors();
    } finally {
      await s.close();
    }
  });
  it("o. an admin previews a Git repository, sees why one skill is refused, and imports the chosen one", { timeout: 60_000 }, async () => {
    const repo = mkdtempSync(join(tmpdir(), "antler-e2e-repo-"));
    const git = (...args) => execFileSync("git", ["-c", "user.email=e2e@antler.test", "-c", "user.name=e2e", ...args], { cwd: repo });
    const s = await stack.page();
    try {
      git("init", "-q", "-b", "main");
      for (const [dir, name] of [["skills/o-imported", "o-imported"], ["skills/o-linky", "o-linky"]]) {
        mkdirSync(join(repo, dir), { recursive: true });
        writeFileSync(join(repo, dir, "SKILL.md"), `---\nname: ${name}\ndescription: Imported from Git in the end-to-end test.\n---\n# ${name}\n`);
      }
      symlinkSync("/etc/passwd", join(repo, "skills/o-linky/passwd"));
      git("add", "-A");
      git("commit", "-q", "-m", "skills");
      const { page } = s;
      await page.goto("/settings/skills?tab=custom");
      await page.getByRole("button", { name: "Add from Git" }).click();
      const dialog = page.getByRole("dialog", { name: "Add skills from Git" });
      await dialog.getByTestId("import-url").fill(`file://${repo}`);
      await dialog.getByTestId("import-preview").click();
      await dialog.getByTestId("import-preview-list").waitFor();
      assert.equal(await dialog.getByTestId("import-candidate").count(), 2);
      assert.equal(await dialog.getByLabel("Install o-linky").isDisabled(), true);
      await dialog.getByTestId("findings").getByText("symlink").waitFor();
      assert.equal(await dialog.getByLabel("Install o-imported").isChecked(), true);
      await shot(page, "o-git-import-preview");
      await dialog.getByTestId("confirm-import").click();
      await page.getByTestId("toast").filter({ hasText: "Imported “o-imported”" }).waitFor();
      const row = page.locator('[data-testid=skill-row][data-skill="o-imported"]');
      await row.waitFor();
      assert.equal(await row.getByRole("switch").getAttribute("aria-checked"), "true");
      const { skills } = await stack.api("GET", "/api/skills");
      assert.ok(!skills.some((k) => k.name === "o-linky"), "the refused skill was not installed");
      s.assertNoErrors();
    } finally {
      await s.close();
      rmSync(repo, { recursive: true, force: true });
    }
  });

  it("p. an image pasted into the message box is shown, sent with the message, and described to a model that cannot see", { timeout: 60_000 }, async () => {
    const s = await stack.page();
    try {
      const { page } = s;
      await page.goto("/");
      await page.getByTestId("welcome").waitFor();
      const box = page.getByRole("textbox", { name: "Message" });
      // A 1x1 PNG, pasted the way a browser delivers a screenshot from the clipboard.
      const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
      await box.evaluate((el, data) => {
        const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
        const dt = new DataTransfer();
        dt.items.add(new File([bytes], "dot.png", { type: "image/png" }));
        el.dispatchEvent(new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true }));
      }, png);
      await page.getByTestId("composer-image").waitFor();
      await box.fill("p. what is in this picture");
      await page.getByTestId("send-button").click();
      const sent = page.getByTestId("human-message").filter({ hasText: "p. what is in this picture" });
      await sent.getByTestId("human-image").waitFor();
      assert.equal(await page.getByTestId("composer-image").count(), 0, "the box is empty again");
      await until(async () => {
        const requests = await stack.modelRequests();
        return requests.some((r) => lastUserOf(r).includes("p. what is in this picture") && lastUserOf(r).includes("1 image(s) attached"));
      }, { message: "the model to be told about the image" });
      // After a reload the picture is still part of the message.
      await page.reload();
      await page.getByTestId("human-message").filter({ hasText: "p. what is in this picture" }).getByTestId("human-image").waitFor();
      await shot(page, "p-image-message");
      s.assertNoErrors();
    } finally {
      await s.close();
    }
  });
});
