// End-to-end tests of tools in the chat against the real server, the Docker sandbox and the
// scripted model: an MCP server's tool with live progress and Settings → Tools (t), and plan
// mode's checklist (u). One server and one model for the file (its own); every scenario uses
// new threads. Scenario t needs the MCP test servers (scripts/mcp-servers.sh): without them it
// is skipped, or fails when ANTLER_REQUIRE_MCP is set (as `make test` does).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ROOT, SCREENSHOTS, Stack, screenshot, sendMessage, systemOf, threadIdOf, until } from "./harness.mjs";

const SHOTS = join(SCREENSHOTS, "tools");
const stack = new Stack({ screenshots: SHOTS });
const shots = [];

async function shot(page, name) {
  shots.push(await screenshot(page, name, SHOTS));
}

/** The Python of the MCP test servers' virtualenv, or why it cannot be used. */
const MCP_PYTHON = process.env.ANTLER_TEST_MCP_PYTHON;
const mcpMissing = !MCP_PYTHON
  ? "ANTLER_TEST_MCP_PYTHON is not set"
  : !existsSync(MCP_PYTHON)
    ? `ANTLER_TEST_MCP_PYTHON (${MCP_PYTHON}) does not exist`
    : undefined;
const MCP_HINT = 'install the MCP test servers and export their variables: set -a; eval "$(scripts/mcp-servers.sh)"; set +a';
const REQUIRE_MCP = !!process.env.ANTLER_REQUIRE_MCP;
const skipMcp = mcpMissing && !REQUIRE_MCP ? `MCP test servers missing (${mcpMissing}); ${MCP_HINT}` : false;
if (skipMcp) console.log(`# skipping scenario t: ${skipMcp}`);

/** tests/mcp/many_tools.py as the MCP server "many": 5 catalogue tools, crash and slow. */
const MANY_TOOLS = 5 + 2;
const mcpServers = () =>
  `{many: {command: ${JSON.stringify(MCP_PYTHON)}, args: [${JSON.stringify(join(ROOT, "tests/mcp/many_tools.py"))}, "5"], description: "The MCP test server with a slow tool"}}`;

/** The names of the tools a model request offered. */
const toolsOf = (request) => (request.tools ?? []).map((t) => t.function?.name).sort();

/** The pids of the server's child processes running `many_tools.py` (Linux `ps`). */
function manyToolsPids() {
  let out = "";
  try {
    out = execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(stack.server.child.pid)], { encoding: "utf8" });
  } catch {
    // ps answers 1 when there is no such process
  }
  return out
    .split("\n")
    .filter((l) => l.includes("many_tools.py"))
    .map((l) => Number(l.trim().split(/\s+/)[0]));
}

/** The statuses and texts of the checklist's items, and which one is the current step. */
async function planItems(page) {
  return page.getByTestId("plan").evaluate((plan) =>
    Array.from(plan.querySelectorAll("[data-testid=plan-item]")).map((li) => ({
      text: li.querySelector(".plan-text")?.textContent,
      status: li.getAttribute("data-status"),
      current: li.getAttribute("aria-current"),
    })),
  );
}

const FIRST_PLAN = [
  { text: "Read the data", status: "in_progress", current: "step" },
  { text: "Write the report", status: "pending", current: null },
];
const SECOND_PLAN = [
  { text: "Read the data", status: "completed", current: null },
  { text: "Write the report", status: "in_progress", current: "step" },
];

describe("tools end to end", { concurrency: false }, () => {
  before(async () => {
    await stack.start({ env: mcpMissing ? {} : { ANTLER_MCP_SERVERS: mcpServers() } });
    console.log(`# server ${stack.baseUrl}, model ${stack.mockUrl}${mcpMissing ? " (no MCP servers)" : ", MCP server many"}`);
  }, { timeout: 180_000 });

  after(async () => {
    const started = Date.now();
    await stack.stop();
    console.log(`# stopped the server in ${Date.now() - started} ms`);
    console.log(`# screenshots (${shots.length}) in ${SHOTS}`);
  }, { timeout: 120_000 });

  it("t. an MCP tool's card names its server and shows progress while it runs, then the result; Settings → Tools shows the server, its tools and calls, and Restart works", { timeout: 120_000, skip: skipMcp }, async () => {
    if (mcpMissing) throw new Error(`ANTLER_REQUIRE_MCP is set but the MCP test servers are missing: ${mcpMissing}; ${MCP_HINT}`);
    const s = await stack.page();
    try {
      const { page } = s;
      await page.goto("/");
      await page.getByTestId("model-label").waitFor();
      await sendMessage(page, "t-mcp slow, please");
      const threadId = threadIdOf(page);

      // The card while the call runs: the server's label, the MCP tool's name, and progress.
      const card = page.locator('[data-testid=tool-card][data-tool="mcp__many__slow"]');
      await card.waitFor({ timeout: 60_000 });
      assert.equal(await card.getByTestId("tool-origin").textContent(), "MCP · many");
      assert.equal(await card.locator(".tool-title").textContent(), "slow");
      const progress = card.getByTestId("tool-progress");
      await progress.waitFor({ timeout: 30_000 });
      // Read at once, so both belong to the same moment: progress shows before the result.
      const seen = await card.evaluate((el) => ({
        running: el.classList.contains("tool-running"),
        status: el.querySelector(".tool-status")?.textContent?.trim(),
        progress: !!el.querySelector("[data-testid=tool-progress]"),
      }));
      assert.deepEqual(seen, { running: true, status: "running…", progress: true }, "progress while the call runs");
      const bar = card.getByRole("progressbar", { name: "Progress of slow" });
      assert.equal(await bar.getAttribute("max"), "3");
      const firstValue = Number(await bar.getAttribute("value"));
      assert.match(await progress.textContent(), /waited \d\.\d of 3 s$/);
      await shot(page, "t-mcp-progress");
      await until(async () => Number(await bar.getAttribute("value")) > firstValue, { message: "the progress to advance" });

      // The result replaces the progress; the model answers after it.
      await card.locator(".tool-status").filter({ hasText: "done" }).waitFor({ timeout: 30_000 });
      assert.equal(await progress.count(), 0, "no progress once the result is in");
      await page.getByTestId("assistant-text").filter({ hasText: "T-MCP-DONE" }).waitFor({ timeout: 30_000 });
      await card.locator(".tool-head").click();
      assert.equal(await card.getByTestId("tool-output").textContent(), "slept 3 seconds");
      await shot(page, "t-mcp-result");
      const request = await stack.modelRequestFor("t-mcp slow");
      assert.ok(toolsOf(request).includes("mcp__many__slow"), `the MCP tool was offered: ${toolsOf(request)}`);
      assert.deepEqual((await stack.runsOf(threadId)).map((r) => r.status), ["success"]);

      // Settings → Tools: connected, its tools, one call.
      await page.getByRole("link", { name: "Tools", exact: true }).click();
      await page.waitForURL(/\/settings\/tools$/);
      const server = page.locator('[data-testid=mcp-server][data-server="many"]');
      await server.getByTestId("mcp-state").filter({ hasText: "connected" }).waitFor();
      assert.equal(await server.getByTestId("mcp-calls").textContent(), "1 call · 0 failed");
      await server.getByText("The MCP test server with a slow tool").waitFor();
      await server.getByRole("button", { name: `Show the ${MANY_TOOLS} tools of many` }).click();
      const tools = server.getByRole("list", { name: "Tools of many" });
      assert.equal(await tools.getByTestId("mcp-tool").count(), MANY_TOOLS);
      const slow = tools.getByTestId("mcp-tool").filter({ hasText: "mcp__many__slow" });
      await slow.getByRole("table", { name: "Arguments of slow" }).getByText("seconds", { exact: true }).waitFor();
      await shot(page, "t-settings-tools");

      // Restart (the admin): a new process, connected again.
      const before = manyToolsPids();
      assert.equal(before.length, 1, `one many_tools.py process: ${before}`);
      await server.getByRole("button", { name: "Restart many" }).click();
      await page.getByTestId("toast").filter({ hasText: "Restarted “many”: connected." }).waitFor({ timeout: 30_000 });
      await server.getByTestId("mcp-state").filter({ hasText: "connected" }).waitFor();
      const afterRestart = manyToolsPids();
      assert.equal(afterRestart.length, 1, `one many_tools.py process after the restart: ${afterRestart}`);
      assert.notEqual(afterRestart[0], before[0], "the restart started a new process");
      const status = (await stack.api("GET", "/api/mcp/servers")).servers.find((x) => x.name === "many");
      assert.equal(status.state, "connected");
      assert.equal(await server.getByTestId("mcp-calls").textContent(), `${status.calls} call${status.calls === 1 ? "" : "s"} · ${status.failed_calls} failed`);
      await shot(page, "t-settings-tools-restarted");
      s.assertNoErrors();
    } finally {
      await s.close();
    }
  });

  it("u. plan mode: the toggle asks for it, the checklist follows write_todos as the plan advances, and it stays after a reload", { timeout: 120_000 }, async () => {
    const s = await stack.page();
    let threadId;
    try {
      const { page } = s;
      await page.goto("/");
      await page.getByTestId("model-label").waitFor();
      const toggle = page.getByRole("button", { name: "Plan mode" });
      assert.equal(await toggle.getAttribute("aria-pressed"), "false");
      await toggle.click();
      assert.equal(await toggle.getAttribute("aria-pressed"), "true");
      const streamed = page.waitForRequest((r) => r.url().endsWith("/runs/stream") && r.method() === "POST");
      await sendMessage(page, "u-plan the report");
      threadId = threadIdOf(page);
      // (Every run also names the composer's model and thinking level.)
      assert.deepEqual((await streamed).postDataJSON().context, { model_name: "e2e-demo", thinking: false, plan_mode: true }, "the run asks for plan mode");

      // The first plan: nothing done, the first step current.
      const plan = page.getByRole("region", { name: "Plan" });
      const progress = plan.getByTestId("plan-progress");
      await progress.filter({ hasText: "0 of 2 done" }).waitFor({ timeout: 60_000 });
      assert.deepEqual(await planItems(page), FIRST_PLAN);
      assert.equal(await plan.getByRole("list", { name: "Plan, 0 of 2 done" }).count(), 1);
      await shot(page, "u-plan-first");

      // The second: the first step done, the second current; then the answer.
      await progress.filter({ hasText: "1 of 2 done" }).waitFor({ timeout: 30_000 });
      assert.deepEqual(await planItems(page), SECOND_PLAN);
      await page.getByTestId("assistant-text").filter({ hasText: "U-PLAN-DONE" }).waitFor({ timeout: 30_000 });
      await page.getByTestId("send-button").waitFor();
      assert.equal(await progress.textContent(), "1 of 2 done");
      assert.deepEqual(await planItems(page), SECOND_PLAN);
      const cards = page.locator('[data-testid=tool-card][data-tool="write_todos"]');
      assert.deepEqual(await cards.locator(".tool-title").allTextContents(), ["Updated the plan", "Updated the plan"]);
      assert.deepEqual(await cards.locator(".tool-summary").allTextContents(), ["0 of 2 done", "1 of 2 done"]);
      await shot(page, "u-plan-done");

      // What the model was offered and told; what the thread keeps.
      const request = await stack.modelRequestFor("u-plan the report");
      assert.ok(toolsOf(request).includes("write_todos"), `write_todos offered: ${toolsOf(request)}`);
      const system = systemOf(request);
      assert.ok(system.includes("<planning>") && system.includes("write_todos"), "the system prompt guides the plan");
      const state = await stack.api("GET", `/api/threads/${encodeURIComponent(threadId)}/state`);
      assert.deepEqual(state.values.todos, [
        { content: "Read the data", status: "completed" },
        { content: "Write the report", status: "in_progress" },
      ]);

      // After a reload: the checklist, and the toggle, are still there.
      await page.reload();
      await page.getByTestId("assistant-text").filter({ hasText: "U-PLAN-DONE" }).waitFor();
      await progress.filter({ hasText: "1 of 2 done" }).waitFor();
      assert.deepEqual(await planItems(page), SECOND_PLAN);
      assert.equal(await toggle.getAttribute("aria-pressed"), "true", "the browser remembers plan mode");

      // Folded, it keeps its title line.
      const head = plan.getByRole("button", { name: /^Plan/ });
      await head.click();
      assert.equal(await head.getAttribute("aria-expanded"), "false");
      assert.equal(await plan.getByTestId("plan-item").count(), 0);
      assert.equal(await progress.textContent(), "1 of 2 done");
      // The chevron turns back (a short transition) before the picture.
      await until(async () => (await head.locator(".chevron").evaluate((el) => getComputedStyle(el).transform)) === "none", {
        message: "the chevron to point right",
      });
      await shot(page, "u-plan-folded");
      await head.click();
      await plan.getByTestId("plan-item").first().waitFor();

      // Off again: the next run is not offered write_todos; the plan written stays.
      await toggle.click();
      assert.equal(await toggle.getAttribute("aria-pressed"), "false");
      const plain = page.waitForRequest((r) => r.url().endsWith("/runs/stream") && r.method() === "POST");
      await sendMessage(page, "u-without planning now");
      assert.deepEqual((await plain).postDataJSON().context, { model_name: "e2e-demo", thinking: false }, "no plan mode asked for");
      await page.getByTestId("assistant-text").filter({ hasText: /^ok$/ }).waitFor({ timeout: 60_000 });
      await page.getByTestId("send-button").waitFor();
      const without = await stack.modelRequestFor("u-without planning now");
      assert.ok(!toolsOf(without).includes("write_todos"), "write_todos is not offered");
      assert.ok(!systemOf(without).includes("<planning>"));
      assert.equal(await progress.textContent(), "1 of 2 done");
      s.assertNoErrors();
    } finally {
      await s.close();
    }

    // At phone width, in the dark: the checklist fits, the toggle is its icon.
    const phone = await stack.page({ width: 390, height: 844, colorScheme: "dark" });
    try {
      const { page } = phone;
      await page.goto(`/threads/${threadId}`);
      await page.getByRole("region", { name: "Plan" }).getByTestId("plan-progress").filter({ hasText: "1 of 2 done" }).waitFor();
      await page.getByRole("button", { name: "Plan mode" }).waitFor();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `no horizontal scrolling (${overflow}px)`);
      await shot(page, "u-plan-phone-dark");
      phone.assertNoErrors();
    } finally {
      await phone.close();
    }
  });
});
