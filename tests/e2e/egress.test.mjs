// End-to-end test of network egress and secrets in the web UI: an admin stores a secret on
// Settings → Secrets (its value never shows again); a run on an allow-list sandbox fetches a
// page from the test's own server, is refused a host off the list, and its tool card says
// "network: 2 hosts, …; 1 refused" with each connection listed; the secret it echoed reads
// [secret:E2E_TOKEN] everywhere on the page.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SCREENSHOTS, Stack, screenshot, sendMessage, threadIdOf, until } from "./harness.mjs";

const SHOTS = join(SCREENSHOTS, "egress");
const stack = new Stack({ screenshots: SHOTS });
const VALUE = "e2e-secret-value-4f1c9a";
const KEY = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
// The "outside": the scripted model's command fetches this address (mock.yaml, scenario z).
const OUTSIDE = { host: "127.0.0.2", port: 47311 };
let outside;

describe("egress and secrets", { concurrency: false }, () => {
  before(async () => {
    outside = createServer((_req, res) => res.end("page from outside"));
    await new Promise((resolve) => outside.listen(OUTSIDE.port, OUTSIDE.host, resolve));
    await stack.start({
      env: {
        ANTLER_SANDBOX_NETWORK: "allowlist",
        ANTLER_SANDBOX_EGRESS_ALLOWED_DOMAINS: `${OUTSIDE.host}:${OUTSIDE.port}`,
        ANTLER_SECRETS_KEY: KEY,
      },
    });
    console.log(`# server ${stack.baseUrl}, model ${stack.mockUrl}`);
  }, { timeout: 180_000 });

  after(async () => {
    await stack.stop();
    await new Promise((resolve) => outside?.close(resolve));
  }, { timeout: 120_000 });

  it("z. a secret stored on its page reaches the run as [secret:NAME]; the tool card shows the connections", { timeout: 120_000 }, async () => {
    const s = await stack.page();
    try {
      const { page } = s;
      await page.goto("/settings/secrets");
      const form = page.getByRole("form", { name: "New secret" });
      await form.getByLabel("Name").fill("E2E_TOKEN");
      await form.getByLabel("Value").fill(VALUE);
      await form.getByLabel("Agents that get it").fill("*");
      await form.getByRole("button", { name: "Add secret" }).click();
      const row = page.getByTestId("secret-row").filter({ hasText: "E2E_TOKEN" });
      await row.waitFor();
      assert.equal(await row.getByTestId("secret-grants").textContent(), "agents: every agent");
      assert.equal(await form.getByLabel("Value").inputValue(), "");
      assert.ok(!(await page.content()).includes(VALUE), "the value is not on the page");
      await screenshot(page, "z-secrets", SHOTS);

      await page.goto("/");
      await page.getByTestId("model-label").waitFor();
      await sendMessage(page, "z-fetch the outside page");
      const threadId = threadIdOf(page);
      await until(async () => (await stack.runsOf(threadId))[0]?.status === "success", { message: "the run to succeed" });
      const card = page.getByTestId("tool-card").filter({ has: page.getByTestId("tool-network") });
      await card.waitFor();
      assert.match(await card.getByTestId("tool-network").textContent(), /^network: 2 hosts, [\d.]+ (B|kB); 1 refused$/);
      await card.getByRole("button").first().click();
      const output = await card.getByTestId("tool-output").textContent();
      assert.match(output, /page from outside/);
      assert.match(output, /403/);
      assert.match(output, /token=\[secret:E2E_TOKEN\]/);
      const connections = await card.getByTestId("tool-connections").locator("li").allTextContents();
      assert.equal(connections.length, 2);
      assert.match(connections[0], /^127\.0\.0\.2:47311 /);
      assert.match(connections[1], /^blocked\.example:80 refused — blocked\.example is not in the egress allow-list/);
      assert.ok(!(await page.content()).includes(VALUE), "the value is not on the page");
      await screenshot(page, "z-network", SHOTS);
      s.assertNoErrors();
    } finally {
      await s.close();
    }
  });
});
