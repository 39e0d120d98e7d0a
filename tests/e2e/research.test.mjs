// End-to-end test of web research in the web UI: the test's own server stands in for a SearXNG
// instance and two article pages; a run searches (sources [1] and [2]), reads both pages,
// writes and presents a cited report, and answers citing [1] and [2]. The answer shows a
// Sources list whose items link to the pages; its citations link to those items (a click
// scrolls to and highlights one); the web cards show the query, results and pages read; the
// run's metadata keeps the sources.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SCREENSHOTS, Stack, screenshot, sendMessage, threadIdOf, until } from "./harness.mjs";

const SHOTS = join(SCREENSHOTS, "research");
const stack = new Stack({ screenshots: SHOTS });
// The "web": mock.yaml's scenario w-research fetches these addresses.
const WEB = { host: "127.0.0.3", port: 47312 };
const ORIGIN = `http://${WEB.host}:${WEB.port}`;
const QUERY = "alpha and beta frameworks";

/** An article page: navigation, a script and several paragraphs, as real pages have. */
const article = (title, heading, topic) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${title}</title>
  <script>window.tracker = { page: ${JSON.stringify(heading)} };</script>
  <style>nav { float: left; }</style>
</head>
<body>
  <nav><a href="/">Home</a> | <a href="/a">Alpha</a> | <a href="/b">Beta</a> | <a href="/about">About us</a></nav>
  <main>
    <article>
      <h1>${heading}</h1>
      <p>${topic} is a framework that many teams adopted over the last few years. This article explains what it does,
      where it came from, and why people choose it for their services and command-line tools.</p>
      <p>The project started as a small experiment and grew into a community with hundreds of contributors. Its
      maintainers publish a release every six weeks, with a changelog that lists every change and its reason.</p>
      <p>${topic} keeps its core small: everything else is a plugin. Plugins are versioned separately, so an
      application upgrades the core without touching the rest, and the other way round.</p>
      <p>Benchmarks published by the maintainers show steady improvements from release to release; independent
      measurements agree on the trend, if not on every number.</p>
      <p>In short, ${topic} is a sound choice for teams that value a small core and a predictable release cadence.</p>
    </article>
  </main>
  <footer>Copyright 2026 The ${topic} Project. <a href="/privacy">Privacy</a></footer>
  <script>document.querySelectorAll("a").forEach((a) => a.addEventListener("click", () => {}));</script>
</body>
</html>`;

const PAGES = {
  "/a": article("Alpha Framework: Cooperative Scheduling Explained", "Alpha, explained", "Alpha"),
  "/b": article("Beta Framework: Ahead-of-Time Compilation", "Beta, explained", "Beta"),
};

/** Every request the test's server received (`/search?q=…`, `/a`, `/b`). */
const seen = [];
let web;

describe("web research", { concurrency: false }, () => {
  before(async () => {
    web = createServer((req, res) => {
      const url = new URL(req.url ?? "/", ORIGIN);
      seen.push(url.pathname + url.search);
      if (url.pathname === "/search") {
        const q = url.searchParams.get("q") ?? "";
        if (url.searchParams.get("format") !== "json") {
          res.writeHead(400).end("format=json only");
          return;
        }
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            query: q,
            results: [
              { url: `${ORIGIN}/a`, title: "Page A", content: "About A", publishedDate: "2026-01-01" },
              { url: `${ORIGIN}/b`, title: "Page B", content: "About B" },
            ],
          }),
        );
        return;
      }
      const page = PAGES[url.pathname];
      if (page) {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
        res.end(page);
        return;
      }
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    });
    await new Promise((resolve, reject) => {
      web.once("error", reject);
      web.listen(WEB.port, WEB.host, resolve);
    });
    await stack.start({
      env: {
        ANTLER_WEB_SEARCH_PROVIDER: "searxng",
        ANTLER_WEB_SEARCH_BASE_URL: ORIGIN,
        // The test's server is on a loopback address, on its own port.
        ANTLER_WEB_ALLOW_PRIVATE_NETWORKS: "true",
        ANTLER_WEB_ALLOWED_PORTS: `80,443,${WEB.port}`,
      },
    });
    console.log(`# server ${stack.baseUrl}, model ${stack.mockUrl}, web ${ORIGIN}`);
  }, { timeout: 180_000 });

  after(async () => {
    await stack.stop();
    await new Promise((resolve) => (web ? web.close(resolve) : resolve()));
  }, { timeout: 120_000 });

  it("w-research. the answer lists its sources, its citations link to them, the cards show what was searched and read", { timeout: 180_000 }, async () => {
    const s = await stack.page({ height: 640 });
    try {
      const { page } = s;
      await page.goto("/");
      await page.getByTestId("model-label").waitFor();
      await sendMessage(page, "w-research the web: compare Alpha and Beta, with a report");
      const threadId = threadIdOf(page);
      await until(async () => (await stack.runsOf(threadId))[0]?.status === "success", {
        timeout: 120_000,
        message: "the run to succeed",
      });
      const answer = page.getByTestId("assistant-text").filter({ hasText: "W-RESEARCH-DONE" });
      await answer.waitFor({ timeout: 60_000 });

      // The test's server was asked for the search and both pages.
      const search = seen.find((r) => r.startsWith("/search?"));
      assert.ok(search, `no search request: ${JSON.stringify(seen)}`);
      const params = new URL(search, ORIGIN).searchParams;
      assert.equal(params.get("q"), QUERY);
      assert.equal(params.get("format"), "json");
      assert.ok(seen.includes("/a"), `page A was not read: ${JSON.stringify(seen)}`);
      assert.ok(seen.includes("/b"), `page B was not read: ${JSON.stringify(seen)}`);

      // The Sources list under the answer: numbered, the search's titles, the domain, links to the pages.
      const reply = page.getByRole("article", { name: "Assistant" }).filter({ has: answer });
      const sources = reply.getByRole("region", { name: "Sources" });
      await sources.waitFor();
      const items = sources.getByTestId("source-item");
      assert.deepEqual(await items.allTextContents(), ["[1] Page A — 127.0.0.3", "[2] Page B — 127.0.0.3"]);
      for (const [i, path] of [[0, "/a"], [1, "/b"]]) {
        const link = items.nth(i).getByRole("link");
        assert.equal(await link.getAttribute("href"), `${ORIGIN}${path}`);
        assert.equal(await link.getAttribute("target"), "_blank");
        assert.equal(await link.getAttribute("rel"), "noopener noreferrer");
      }
      const ids = await items.evaluateAll((els) => els.map((e) => e.id));
      assert.equal(new Set(ids).size, 2);
      assert.ok(ids.every((id) => id.length > 0), "every item has an id");

      // The answer's citations: [1] and [2] link to their items; [7] (no such source) and code stay text.
      const citations = answer.getByTestId("citation");
      assert.deepEqual(await citations.allTextContents(), ["[1]", "[2]"]);
      assert.deepEqual(
        await citations.evaluateAll((els) => els.map((e) => e.getAttribute("href"))),
        ids.map((id) => `#${id}`),
      );
      const answerText = await answer.textContent();
      assert.match(answerText, /and \[7\] cites nothing/);
      assert.equal(await answer.locator("code").textContent(), "x[1]");

      // The web cards: the search with its query and numbered results; each page read, with its number.
      const searchCard = page.locator('[data-testid="tool-card"][data-tool="web_search"]');
      assert.equal(await searchCard.locator(".tool-title").textContent(), "Searched the web");
      assert.equal(await searchCard.locator(".tool-summary").textContent(), QUERY);
      assert.deepEqual(await searchCard.getByTestId("web-result").allTextContents(), [
        "[1] Page A — 127.0.0.3",
        "[2] Page B — 127.0.0.3",
      ]);
      const fetchCards = page.locator('[data-testid="tool-card"][data-tool="web_fetch"]');
      assert.equal(await fetchCards.count(), 2);
      assert.deepEqual((await fetchCards.getByTestId("tool-web").allTextContents()).sort(), [
        `[1] Alpha Framework: Cooperative Scheduling Explained — ${ORIGIN}/a`,
        `[2] Beta Framework: Ahead-of-Time Compilation — ${ORIGIN}/b`,
      ]);
      // The report was written and presented.
      await reply.getByTestId("file-chip").filter({ hasText: "report.md" }).waitFor();
      await screenshot(page, "w-research-answer", SHOTS);

      // Following [1] from the top of the conversation scrolls to its item and highlights it.
      await page.getByTestId("messages").evaluate((el) => {
        el.scrollTop = 0;
      });
      const first = items.nth(0);
      await citations.nth(0).click();
      await until(() => first.evaluate((el) => el.classList.contains("source-highlight")), {
        timeout: 2_000,
        message: "the first source to be highlighted",
      });
      assert.equal(await first.evaluate((el) => el === document.activeElement), true);
      await until(
        () =>
          first.evaluate((el) => {
            const r = el.getBoundingClientRect();
            return r.top >= 0 && r.bottom <= window.innerHeight;
          }),
        { timeout: 3_000, message: "the first source to be scrolled into view" },
      );
      // An in-page anchor: the chat did not navigate away.
      assert.equal(threadIdOf(page), threadId);
      await screenshot(page, "w-research-citation", SHOTS);

      // A search card opened: the snippets; a fetch card opened: the page's details.
      await searchCard.getByRole("button").first().click();
      await searchCard.getByText("About A", { exact: true }).waitFor();
      await screenshot(page, "w-research-search-card", SHOTS);

      // The run's metadata keeps every source, numbered as cited, both read.
      const [run] = await stack.runsOf(threadId);
      const meta = run.metadata?.sources;
      assert.ok(Array.isArray(meta), `no sources in the run's metadata: ${JSON.stringify(run.metadata)}`);
      assert.equal(meta.length, 2);
      assert.deepEqual(
        meta.map((m) => [m.index, m.url, m.title, m.domain, m.kind]),
        [
          [1, `${ORIGIN}/a`, "Page A", "127.0.0.3", "fetch"],
          [2, `${ORIGIN}/b`, "Page B", "127.0.0.3", "fetch"],
        ],
      );

      // After a reload, the list and citations come from the stored tool results.
      await page.reload();
      const again = page.getByTestId("assistant-text").filter({ hasText: "W-RESEARCH-DONE" });
      await again.waitFor();
      assert.deepEqual(await page.getByRole("region", { name: "Sources" }).getByTestId("source-item").allTextContents(), [
        "[1] Page A — 127.0.0.3",
        "[2] Page B — 127.0.0.3",
      ]);
      assert.equal(await again.getByTestId("citation").count(), 2);
      s.assertNoErrors();
    } finally {
      await s.close();
    }
  });
});
