// LangChain's Agent Chat UI (an unmodified third-party LangGraph client) in Chromium against
// the real server, in both of its modes:
//   direct:      the browser calls Antler (CORS, the API key from the UI's localStorage);
//   passthrough: the browser calls the UI's own /api route, which forwards server side
//                (text/plain bodies, the key from LANGSMITH_API_KEY).
// The UI is built by scripts/agent-chat-ui.sh; AGENT_CHAT_UI_DIR names the build (skipped
// when unset). The model is antler-mock-llm with ./mock.yaml; the sandbox is the local one,
// so no Docker is needed. Screenshots of failures: $CARGO_TARGET_DIR/e2e-screenshots/
// agent-chat-ui (else /tmp/agent-chat-ui-screenshots).
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  PNG,
  SCREENSHOTS,
  SKIP,
  chatRequestsFor,
  stack,
  startStack,
  stopStack,
  textOf,
  until,
} from "./stack.mjs";

// ---- the UI ----------------------------------------------------------------------------

/** A browser page on the UI in `mode`, recording the API requests it makes. */
async function openUi(mode) {
  const context = await stack.browser.newContext({ viewport: { width: 1280, height: 860 } });
  if (mode === "direct") {
    // What the UI's setup form stores; its SDK client sends it as X-Api-Key.
    await context.addInitScript((key) => window.localStorage.setItem("lg:chat:apiKey", key), stack.token);
  }
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const requests = [];
  const errors = [];
  page.on("request", (r) => {
    if (!/\/api\//.test(r.url())) return;
    const entry = { method: r.method(), url: r.url(), body: r.postData() ?? undefined, status: undefined };
    requests.push(entry);
    r.response()
      .then((res) => {
        entry.status = res?.status();
      })
      .catch(() => undefined);
  });
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  const apiUrl = mode === "direct" ? stack.apiUrl : `${stack.uiUrl}/api`;
  // The API URL is a runtime query parameter of the UI (nuqs), so one build serves both
  // modes; the assistant id (`agent`) is baked in at build time.
  const home = `${stack.uiUrl}/?apiUrl=${encodeURIComponent(apiUrl)}`;
  return { mode, context, page, requests, errors, home, apiUrl };
}

const composer = (page) => page.getByPlaceholder("Type your message...");

/** Waits until no run is going (the Cancel button is back to Send). */
async function idle(page, timeout = 30_000) {
  await page.getByRole("button", { name: "Cancel", exact: true }).waitFor({ state: "hidden", timeout });
  await page.getByRole("button", { name: "Send", exact: true }).waitFor({ state: "visible", timeout });
}

async function send(page, text) {
  await composer(page).fill(text);
  await composer(page).press("Enter");
}

/** A request starting a run on a thread. */
const isRunStart = (r) => r.method === "POST" && /\/threads\/[^/]+\/runs\/stream$/.test(r.url);

const threadIdOf = (page) => new URL(page.url()).searchParams.get("threadId");

/** A human message bubble (with its Edit button and branch switcher). */
const humanMessage = (page, text) => page.locator("div.group.ml-auto").filter({ hasText: text });
/** An AI message (with its Refresh button and branch switcher). */
const aiMessage = (page, text) => page.locator("div.group.mr-auto").filter({ hasText: text });

function describeRequests(list) {
  if (!list.length) return "  (none)";
  return list
    .map((r) => {
      const body = r.body === undefined ? "" : ` ${r.body.length > 1500 ? `${r.body.slice(0, 1500)}…` : r.body}`;
      return `  ${r.method} ${r.url} -> ${r.status ?? "?"}${body}`;
    })
    .join("\n");
}

/** Runs one scenario; on failure saves a screenshot and names the API requests it made. */
async function scenario(ui, name, fn) {
  const mark = ui.requests.length;
  try {
    await fn();
  } catch (e) {
    const shot = join(SCREENSHOTS, `${ui.mode}-${name}.png`);
    await ui.page.screenshot({ path: shot, fullPage: true }).catch(() => undefined);
    writeFileSync(join(SCREENSHOTS, `${ui.mode}-${name}.requests.txt`), describeRequests(ui.requests.slice(mark)));
    // A new error: reporters print the stack, which holds the message of its construction.
    throw new Error(
      `${e.message}\nscreenshot: ${shot}\nAPI requests during this scenario:\n${describeRequests(ui.requests.slice(mark))}` +
        (ui.errors.length ? `\nbrowser errors so far:\n  ${ui.errors.slice(-10).join("\n  ")}` : ""),
      { cause: e },
    );
  }
}

// ---- the scenarios ---------------------------------------------------------------------

before(async () => {
  if (!SKIP) await startStack();
}, { timeout: 120_000 });
after(stopStack, { timeout: 120_000 });

for (const mode of ["direct", "passthrough"]) {
  describe(`Agent Chat UI, ${mode}`, { skip: SKIP }, () => {
    let ui;
    let threadId;
    const tag = `(${mode})`;
    before(async () => {
      ui = await openUi(mode);
    });
    after(async () => {
      await ui?.context.close();
    });

    test("a. the page loads without a connection error", { timeout: 60_000 }, () =>
      scenario(ui, "a-load", async () => {
        const info = ui.page.waitForResponse((r) => r.url() === `${ui.apiUrl}/info`);
        await ui.page.goto(ui.home);
        assert.equal((await info).status(), 200, "GET /info");
        await composer(ui.page).waitFor();
        // The toast follows the /info answer; give React a moment to show it.
        await ui.page.waitForTimeout(1_000);
        assert.equal(await ui.page.getByText("Failed to connect to LangGraph server").count(), 0, "connection error toast");
      }));

    test("b. a sent message gets a streamed answer", { timeout: 60_000 }, () =>
      scenario(ui, "b-answer", async () => {
        const stream = ui.page.waitForResponse((r) => /\/threads\/[^/]+\/runs\/stream$/.test(r.url()));
        await send(ui.page, `acui-hello ${tag}`);
        const res = await stream;
        // Direct: Antler itself; passthrough: the UI's own /api route.
        assert.ok(res.url().startsWith(`${ui.apiUrl}/`), `the run went to ${res.url()}`);
        assert.equal(res.status(), 200, "runs/stream");
        assert.match(res.headers()["content-type"] ?? "", /text\/event-stream/);
        await ui.page.getByText("ACUI-ANSWER-HELLO").waitFor();
        await idle(ui.page);
        threadId = threadIdOf(ui.page);
        assert.ok(threadId, `no threadId in ${ui.page.url()}`);
      }));

    test("c. a tool call shows, then the final answer", { timeout: 60_000 }, () =>
      scenario(ui, "c-tool", async () => {
        await send(ui.page, `acui-tools ${tag}`);
        // The call (name and arguments), its result, the answer after it.
        await ui.page.locator("h3").filter({ hasText: /^ls/ }).first().waitFor();
        await ui.page.getByRole("cell", { name: "/mnt/user-data", exact: true }).waitFor();
        await ui.page.locator("h3").filter({ hasText: /^Tool Result:\s*ls/ }).waitFor();
        await ui.page.getByText("ACUI-ANSWER-TOOLS").waitFor();
        await idle(ui.page);
        assert.equal(threadIdOf(ui.page), threadId, "same thread");
      }));

    test("d. the thread is in the thread history", { timeout: 60_000 }, () =>
      scenario(ui, "d-history", async () => {
        // The header's toggle opens the sidebar; its twin inside the closed sidebar is off screen.
        const toggles = await ui.page.locator("button:has(svg.lucide-panel-right-close)").all();
        const onScreen = [];
        for (const b of toggles) if (((await b.boundingBox())?.x ?? -1) >= 0) onScreen.push(b);
        assert.equal(onScreen.length, 1, "one history toggle on screen");
        await onScreen[0].click();
        await ui.page.getByRole("heading", { name: "Thread History" }).waitFor();
        // Items are named by the thread's first message; the list reloads after a new thread.
        const item = ui.page.getByRole("button", { name: `acui-hello ${tag}`, exact: true });
        await item.waitFor({ timeout: 30_000 });
        await item.click();
        assert.equal(threadIdOf(ui.page), threadId);
      }));

    test("e. after a reload the thread's messages are still shown", { timeout: 60_000 }, () =>
      scenario(ui, "e-reload", async () => {
        assert.ok(threadId, "needs the thread of b");
        await ui.page.goto(`${ui.home}&threadId=${threadId}`);
        for (const text of [`acui-hello ${tag}`, "ACUI-ANSWER-HELLO", `acui-tools ${tag}`, "ACUI-ANSWER-TOOLS"]) {
          await ui.page.getByText(text).first().waitFor();
        }
        await ui.page.locator("h3").filter({ hasText: /^ls/ }).first().waitFor();
        await idle(ui.page);
      }));

    test("f. editing a human message answers again on a new branch (‹ 2 / 2 ›)", { timeout: 90_000 }, () =>
      scenario(ui, "f-edit", async () => {
        await newThread(ui);
        await send(ui.page, `acui-branch-one ${tag} f`);
        await ui.page.getByText("ACUI-ANSWER-ONE").waitFor();
        await idle(ui.page);
        const human = humanMessage(ui.page, `acui-branch-one ${tag} f`);
        await human.hover();
        await human.getByRole("button", { name: "Edit", exact: true }).click();
        await human.locator("textarea").fill(`acui-branch-two ${tag} f`);
        const sent = ui.requests.length;
        await ui.page.getByRole("button", { name: "Submit", exact: true }).click();
        // LangGraph semantics: the edit runs from the checkpoint before the message (the
        // parent of the first state holding it in /history), which forks the thread.
        const edit = await until(() => ui.requests.slice(sent).find(isRunStart), { message: "the edit's run" });
        assert.ok(
          JSON.parse(edit.body).checkpoint,
          "the UI sent the edit without a checkpoint: /history gave the message's first state no parent_checkpoint",
        );
        await ui.page.getByText("ACUI-ANSWER-TWO").waitFor();
        await idle(ui.page);
        // The edit replaces the old exchange on screen, and the message offers both branches.
        assert.equal(await ui.page.getByText("ACUI-ANSWER-ONE").count(), 0, "the first answer is off the branch");
        const edited = humanMessage(ui.page, `acui-branch-two ${tag} f`);
        await edited.getByText("2 / 2", { exact: true }).waitFor();
        // Back to the first branch, and forward again.
        await edited.hover();
        await edited.locator("button:has(svg.lucide-chevron-left)").click();
        await ui.page.getByText("ACUI-ANSWER-ONE").waitFor();
        const original = humanMessage(ui.page, `acui-branch-one ${tag} f`);
        await original.getByText("1 / 2", { exact: true }).waitFor();
        await original.hover();
        await original.locator("button:has(svg.lucide-chevron-right)").click();
        await ui.page.getByText("ACUI-ANSWER-TWO").waitFor();
      }));

    test("g. regenerating an AI message answers again on a new branch", { timeout: 90_000 }, () =>
      scenario(ui, "g-regenerate", async () => {
        await newThread(ui);
        const marker = `acui-branch-one ${tag} g`;
        await send(ui.page, marker);
        await ui.page.getByText("ACUI-ANSWER-ONE").waitFor();
        await idle(ui.page);
        const before = (await chatRequestsFor(marker)).length;
        const answer = aiMessage(ui.page, "ACUI-ANSWER-ONE");
        await answer.hover();
        const sent = ui.requests.length;
        await answer.getByRole("button", { name: "Refresh", exact: true }).click();
        // LangGraph semantics: no input, from the checkpoint before the answer.
        const regenerate = await until(() => ui.requests.slice(sent).find((r) => isRunStart(r) && r.status), {
          message: "the regenerate run",
        });
        assert.ok(JSON.parse(regenerate.body).checkpoint, "the UI sent the regenerate run without a checkpoint");
        assert.equal(regenerate.status, 200, "the regenerate run was refused");
        await until(async () => (await chatRequestsFor(marker)).length > before, { message: "a new model call" });
        await idle(ui.page);
        // One answer on screen (the new one), with both versions to switch between.
        await ui.page.getByText("ACUI-ANSWER-ONE").waitFor();
        assert.equal(await ui.page.getByText("ACUI-ANSWER-ONE").count(), 1, "one answer shown");
        await aiMessage(ui.page, "ACUI-ANSWER-ONE").getByText("2 / 2", { exact: true }).waitFor();
        // The regenerated model call saw the same conversation: no second copy of the question.
        const last = (await chatRequestsFor(marker)).at(-1);
        const asked = last.messages.filter((m) => m.role === "user" && textOf(m.content).includes(marker));
        assert.equal(asked.length, 1, "the question once in the regenerated call");
      }));

    test("h. an attached image reaches the model as an image_url part", { timeout: 60_000 }, () =>
      scenario(ui, "h-image", async () => {
        await newThread(ui);
        await ui.page.locator("#file-input").setInputFiles({ name: "acui-dot.png", mimeType: "image/png", buffer: PNG });
        await ui.page.getByRole("img", { name: "acui-dot.png" }).waitFor();
        const marker = `acui-image ${tag}`;
        await send(ui.page, `${marker} what is in this picture?`);
        await ui.page.getByText("ACUI-ANSWER-IMAGE").waitFor();
        await idle(ui.page);
        const req = (await chatRequestsFor(marker)).at(-1);
        assert.ok(req, "the model was asked");
        const user = req.messages.findLast((m) => m.role === "user");
        assert.ok(Array.isArray(user.content), `content parts expected: ${JSON.stringify(user.content).slice(0, 300)}`);
        const image = user.content.find((p) => p.type === "image_url");
        assert.ok(image, `no image_url part in ${JSON.stringify(user.content).slice(0, 300)}`);
        assert.match(image.image_url?.url ?? "", /^data:image\/png;base64,/);
      }));
  });
}

/** Starts a new thread from the header's "New thread" button. */
async function newThread(ui) {
  if (!ui.page.url().startsWith(stack.uiUrl)) await ui.page.goto(ui.home);
  const button = ui.page.getByRole("button", { name: "New thread", exact: true });
  if (await button.isVisible()) await button.click();
  await until(() => !threadIdOf(ui.page), { message: "a new thread" });
  await composer(ui.page).waitFor();
}
