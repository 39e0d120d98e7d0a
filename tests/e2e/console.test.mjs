// End-to-end test of the admin runs console against the real server, the Docker sandbox and
// the scripted model: a chat whose run makes a failing tool call and hands a part to a
// subagent (mock.yaml's c-console) shows in Runs with what it used; filters go to the URL;
// the run opens into its timeline (model calls, the tool call in red with its error, the
// subagent with its own steps nested); and a person who is not an admin has no way in.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ADMIN, SCREENSHOTS, Stack, screenshot, sendMessage, threadIdOf, until } from "./harness.mjs";

const SHOTS = join(SCREENSHOTS, "console");
const stack = new Stack({ screenshots: SHOTS });
const MESSAGE = "c-console: read the missing file, then hand a part to a subagent";

describe("the admin runs console", { concurrency: false }, () => {
  before(async () => {
    await stack.start();
    console.log(`# server ${stack.baseUrl}, model ${stack.mockUrl}`);
  }, { timeout: 180_000 });

  after(async () => {
    await stack.stop();
  }, { timeout: 120_000 });

  it("c. a run with a tool call and a subagent shows in Runs and opens into its timeline", { timeout: 180_000 }, async () => {
    const s = await stack.page();
    try {
      const { page } = s;
      await page.goto("/");
      await page.getByTestId("model-label").waitFor();
      await sendMessage(page, MESSAGE);
      const threadId = threadIdOf(page);
      await page.getByTestId("assistant-text").filter({ hasText: "C-CONSOLE-DONE" }).waitFor({ timeout: 90_000 });
      // The thread's runs include the subagent's (`metadata.parent_run_id`): the chat's is the other.
      const run = await until(async () => {
        const own = (await stack.runsOf(threadId)).find((r) => !r.metadata?.parent_run_id);
        return own?.status === "success" && own;
      }, { timeout: 60_000, message: "the run to succeed" });

      // The API lists the run with the tools it used (the subagent counts as `task`).
      const list = await stack.api("GET", "/api/admin/runs");
      const listed = list.runs.find((r) => r.run_id === run.run_id);
      assert.ok(listed, `the run is listed: ${JSON.stringify(list)}`);
      assert.deepEqual(listed.tools.map((t) => t.name).sort(), ["read_file", "task"]);

      // The navigation's Runs link opens the console; the run is in the table.
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Runs" }).click();
      await page.waitForURL(/\/admin\/runs$/);
      const row = page.locator(`[data-testid=run-row][data-run-id="${run.run_id}"]`);
      await row.waitFor();
      assert.equal(await row.getByTestId("run-status").textContent(), "success");
      assert.match(await row.textContent(), new RegExp(ADMIN.email.replace(/\./g, "\\.")));
      const chips = await row.getByTestId("tool-chip").evaluateAll((els) => els.map((e) => e.getAttribute("aria-label")));
      assert.ok(chips.some((c) => c.startsWith("read_file: 1 call, 1 failed")), `chips: ${chips}`);
      assert.ok(chips.some((c) => c.startsWith("task: 1 call")), `chips: ${chips}`);
      assert.match(await page.getByTestId("run-count").textContent(), /^1 of 1 run$/);
      await screenshot(page, "c-console-list", SHOTS);

      // A filter goes to the URL and to the server; clearing it brings the run back.
      await page.getByLabel("Status").selectOption("error");
      await page.waitForURL(/\/admin\/runs\?status=error$/);
      await page.getByText("No runs match these filters").waitFor();
      await page.getByRole("button", { name: "Clear filters" }).first().click();
      await page.waitForURL(/\/admin\/runs$/);
      await row.waitFor();

      // The run opens into its summary and timeline.
      await row.getByRole("link").click();
      await page.waitForURL(new RegExp(`/admin/runs/${run.run_id}$`));
      assert.equal(await page.getByTestId("detail-status").textContent(), "success");
      assert.equal(await page.getByTestId("conversation-link").getAttribute("href"), `/threads/${threadId}`);
      const top = page.getByRole("list", { name: "Steps", exact: true });
      await top.waitFor();
      const own = top.locator(":scope > [data-testid=step-row]");
      const kinds = await own.evaluateAll((els) =>
        els.map((e) => [e.dataset.kind, e.querySelector("[data-testid=step-name]")?.textContent]),
      );
      // Model calls (the agent's, and maybe the title's), the failed read, the subagent.
      assert.ok(kinds.filter(([k]) => k === "model_call").length >= 3, `steps: ${JSON.stringify(kinds)}`);
      const tool = top.locator(":scope > [data-testid=step-row][data-kind=tool_call]");
      assert.equal(await tool.count(), 1, `steps: ${JSON.stringify(kinds)}`);
      assert.equal(await tool.getByTestId("step-name").textContent(), "read_file");
      assert.equal(await tool.getAttribute("data-status"), "error");
      assert.ok((await tool.locator(":scope > .timeline-step [data-testid=step-error]").textContent()).length > 0);
      assert.equal(
        await tool.locator(":scope > .timeline-track [data-testid=step-bar]").evaluate((b) => getComputedStyle(b).backgroundColor),
        await page.evaluate(() => {
          const probe = document.createElement("span");
          probe.style.color = "var(--danger)";
          document.body.append(probe);
          const color = getComputedStyle(probe).color;
          probe.remove();
          return color;
        }),
        "a failed step's bar is red",
      );
      const subagent = top.locator(":scope > [data-testid=step-row][data-kind=subagent]");
      assert.equal(await subagent.count(), 1, `steps: ${JSON.stringify(kinds)}`);
      assert.equal(await subagent.getByTestId("step-name").first().textContent(), "general-purpose");
      const nested = subagent.locator(":scope > ol > [data-testid=step-row]");
      const nestedKinds = await nested.evaluateAll((els) =>
        els.map((e) => [e.dataset.depth, e.dataset.kind, e.querySelector("[data-testid=step-name]")?.textContent]),
      );
      assert.deepEqual(
        nestedKinds.filter(([, k]) => k === "tool_call"),
        [["1", "tool_call", "read_file"]],
        `subagent steps: ${JSON.stringify(nestedKinds)}`,
      );
      assert.ok(nestedKinds.some(([, k]) => k === "model_call"), `subagent steps: ${JSON.stringify(nestedKinds)}`);
      // Every bar lies inside the run's axis.
      const bars = await page.getByTestId("step-bar").evaluateAll((els) =>
        els.map((b) => [parseFloat(b.style.left), parseFloat(b.style.width)]),
      );
      assert.ok(bars.every(([l, w]) => l >= 0 && w > 0 && l + w <= 100.001), `bars: ${JSON.stringify(bars)}`);
      await screenshot(page, "c-console-detail", SHOTS);
      await page.emulateMedia({ colorScheme: "dark" });
      await screenshot(page, "c-console-detail-dark", SHOTS);
      await page.emulateMedia({ colorScheme: "light" });

      // Back to the list; the conversation link opens the chat.
      await page.getByRole("link", { name: /All runs/ }).click();
      await page.waitForURL(/\/admin\/runs$/);
      await row.waitFor();
      s.assertNoErrors();
    } finally {
      await s.close();
    }
  });

  it("c. a person who is not an admin has no Runs link, no page and no API", { timeout: 60_000 }, async () => {
    const dana = { email: "dana@antler.test", password: "dana-password-1" };
    await stack.api("POST", "/api/users", { ...dana, role: "user" });
    const token = await stack.createToken(dana);
    const refused = await stack.api("GET", "/api/admin/runs", undefined, 403, token);
    assert.equal(typeof refused.error?.message, "string");
    const s = await stack.page({ account: dana });
    try {
      const { page } = s;
      await page.goto("/admin/runs");
      await page.getByText("Admins only").waitFor();
      assert.equal(await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Runs" }).count(), 0);
      s.assertNoErrors();
    } finally {
      await s.close();
    }
  });
});
