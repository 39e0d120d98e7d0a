// End-to-end test of diagrams and math in real Chromium: a scripted answer (mock.yaml's
// `render-diagrams`) streams a Mermaid flowchart, a broken diagram, a diagram and formulas full
// of script, inline and display math and prices. The flowchart is drawn (an image of an SVG with
// its nodes and labels), the broken one shows its source and a note (and no diagram ever showed
// an error while it streamed), the math is KaTeX, prices stay text, and no injected script ran;
// nothing is fetched from another site (a diagram with an image shape is not drawn, an image
// from another site loads only when clicked).
// The diagram follows the dark theme; a Markdown file with a diagram and a formula previews
// rendered too.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SCREENSHOTS, Stack, screenshot, sendMessage, threadIdOf, until } from "./harness.mjs";

const SHOTS = join(SCREENSHOTS, "rendering");
const PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
const stack = new Stack({ screenshots: SHOTS });

/** Before any page script: a trap for injected code, and a log of every diagram that ever
 * showed as failed (by its source's first label), to catch errors flashed while streaming. */
function watchPage() {
  window.__pwned = undefined;
  window.__failedDiagrams = [];
  new MutationObserver(() => {
    for (const el of document.querySelectorAll('[data-testid="mermaid"][data-state="failed"]')) {
      const source = el.querySelector(".mermaid-source code")?.textContent ?? "";
      if (!window.__failedDiagrams.includes(source)) window.__failedDiagrams.push(source);
    }
  }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-state"] });
}

/** What the diagram image of `block` holds: its SVG's nodes, text and anything active. */
function diagramOf(block) {
  return block.locator(".mermaid-diagram img").evaluate((img) => {
    const xml = decodeURIComponent(img.src.slice(img.src.indexOf(",") + 1));
    const svg = new DOMParser().parseFromString(xml, "image/svg+xml");
    const all = [...svg.querySelectorAll("*")];
    return {
      scheme: img.src.startsWith("data:image/svg+xml"),
      loaded: img.complete && img.naturalWidth > 0,
      nodes: svg.querySelectorAll("g.node").length,
      // Labels wrap into one <tspan> per line or word: their words, separated by single spaces.
      text: [...svg.querySelectorAll("text")]
        .map((t) => {
          const leaves = [...t.querySelectorAll("tspan")].filter((x) => !x.querySelector("tspan"));
          return (leaves.length ? leaves.map((x) => x.textContent) : [t.textContent]).join(" ");
        })
        .join(" ")
        .replace(/\s+/g, " "),
      active: all.filter((e) =>
        ["script", "foreignobject", "img", "iframe"].includes(e.localName.toLowerCase()) ||
        [...e.attributes].some((a) => /^on/i.test(a.name) || /javascript:/i.test(a.value)),
      ).map((e) => e.outerHTML.slice(0, 120)),
      xml,
    };
  });
}

describe("diagrams and math", { concurrency: false }, () => {
  before(async () => {
    await stack.start();
    console.log(`# server ${stack.baseUrl}, model ${stack.mockUrl}`);
  }, { timeout: 180_000 });

  after(async () => {
    await stack.stop();
  }, { timeout: 120_000 });

  let threadId;

  it("render. an answer's diagrams and formulas are drawn, a broken diagram shows its source, nothing injected runs", { timeout: 180_000 }, async () => {
    const s = await stack.page();
    const dialogs = [];
    try {
      const { page } = s;
      page.on("dialog", (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      const foreign = [];
      page.on("request", (r) => {
        if (new URL(r.url()).hostname === "exfil.invalid") foreign.push(r.url());
      });
      // Answered here (a 1×1 PNG), so that an asked-for image loads without a network.
      await page.route("http://exfil.invalid/**", (route) =>
        route.fulfill({ status: 200, contentType: "image/png", body: Buffer.from(PIXEL, "base64") }),
      );
      await page.addInitScript(watchPage);
      await page.goto("/");
      await page.getByTestId("model-label").waitFor();
      await sendMessage(page, "render-diagrams and formulas, please");
      threadId = threadIdOf(page);
      const answer = page.getByTestId("assistant-text").filter({ hasText: "RENDER-DONE" });
      await answer.waitFor({ timeout: 60_000 });
      await until(async () => (await stack.runsOf(threadId))[0]?.status === "success", {
        timeout: 60_000,
        message: "the run to succeed",
      });

      const blocks = answer.getByTestId("mermaid");
      await until(async () => (await blocks.count()) === 4, { message: "four diagram blocks" });
      const [good, broken, hostile, exfil] = [blocks.nth(0), blocks.nth(1), blocks.nth(2), blocks.nth(3)];
      await until(async () => (await good.getAttribute("data-state")) === "drawn", { timeout: 30_000, message: "the flowchart to be drawn" });
      await until(async () => (await hostile.getAttribute("data-state")) !== "drawing", { timeout: 30_000, message: "the hostile diagram to settle" });
      await until(async () => (await broken.getAttribute("data-state")) === "failed", { message: "the broken diagram to fail" });

      // The flowchart: an image of an SVG with its four nodes and their labels, nothing active.
      const drawn = await diagramOf(good);
      assert.ok(drawn.scheme && drawn.loaded, "the diagram image loaded");
      assert.equal(drawn.nodes, 4, drawn.xml.slice(0, 400));
      for (const label of ["Render start", "Is it valid?", "Draw the diagram", "Show the source"]) {
        assert.ok(drawn.text.includes(label), `label ${label} in ${drawn.text}`);
      }
      assert.deepEqual(drawn.active, []);

      // The broken diagram: a note and its source, no image.
      await broken.getByTestId("mermaid-error").waitFor();
      assert.match(await broken.getByTestId("mermaid-error").textContent(), /could not be drawn/);
      assert.match(await broken.locator(".mermaid-source").textContent(), /Broken\[Render broken\] -->/);
      assert.equal(await broken.locator("img").count(), 0);

      // The hostile diagram: drawn at the strict level despite its directive, inert.
      assert.equal(await hostile.getAttribute("data-state"), "drawn");
      const inert = await diagramOf(hostile);
      assert.deepEqual(inert.active, []);
      assert.ok(inert.text.includes("Hostile end"), inert.text);
      // Its source is one click away, as text.
      await hostile.getByRole("button", { name: "Show source" }).click();
      assert.match(await hostile.locator(".mermaid-source").textContent(), /click A call alert\(\)/);
      await hostile.getByRole("button", { name: "Show diagram" }).click();
      await hostile.locator(".mermaid-diagram img").waitFor();

      // The diagram that would fetch from another site: not drawn, its source shown.
      await until(async () => (await exfil.getAttribute("data-state")) === "failed", { message: "the fetching diagram to be refused" });
      assert.match(await exfil.getByTestId("mermaid-error").textContent(), /another site/);
      assert.equal(await exfil.locator("img").count(), 0);

      // While the answer streamed, only the broken and the refused diagrams ever showed as failed.
      const failed = await page.evaluate(() => window.__failedDiagrams);
      assert.equal(failed.length, 2, JSON.stringify(failed));
      assert.ok(failed.some((f) => /Render broken/.test(f)), JSON.stringify(failed));
      assert.ok(failed.some((f) => /Render exfil/.test(f)), JSON.stringify(failed));

      // Math: inline (dollars and \( \)), display, and the hostile formulas as plain KaTeX text.
      const tex = await answer.locator(".katex annotation").allTextContents();
      assert.equal(tex.length, 4, JSON.stringify(tex));
      // The `<img …>` "formula" does not parse (`__`): its source shows as text, marked.
      const bad = answer.locator(".katex-error");
      assert.equal(await bad.count(), 1);
      assert.equal(await bad.textContent(), "<img src=x onerror=window.__pwned='math'>");
      assert.equal(await answer.locator(".katex-display").count(), 1);
      assert.ok(tex.includes("e^{i\\pi} + 1 = 0"), JSON.stringify(tex));
      assert.ok(tex.includes("a^2 + b^2 = c^2"), JSON.stringify(tex));
      assert.ok(tex.some((t) => t.includes("\\sum_{k=1}^{n}")), JSON.stringify(tex));
      assert.equal(await answer.locator(".katex a, .katex img, .katex script, .katex-error *").count(), 0);
      // Prices stay text.
      assert.match(await answer.textContent(), /It costs \$5 and \$10 in total\./);

      await screenshot(page, "answer-light", SHOTS);
      await good.scrollIntoViewIfNeeded();
      await screenshot(page, "diagram-light", SHOTS);

      assert.equal(await page.evaluate(() => window.__pwned), undefined, "no injected script ran");
      assert.deepEqual(dialogs, []);
      // Nothing went to the other site; its image loads only when the person asks.
      assert.deepEqual(foreign, []);
      const external = answer.getByTestId("external-image");
      assert.match(await external.textContent(), /exfil\.invalid/);
      await external.click();
      await until(() => foreign.length === 1, { message: "the image to be requested once asked" });
      assert.match(foreign[0], /leak\.png/);
      s.assertNoErrors();
    } finally {
      await s.close();
    }
  });

  it("render. in the dark theme the diagram is drawn again in dark colours", { timeout: 120_000 }, async () => {
    assert.ok(threadId, "the first test made the thread");
    const light = await stack.page();
    const dark = await stack.page({ colorScheme: "dark" });
    try {
      const urls = [];
      for (const { page } of [light, dark]) {
        await page.goto(`/threads/${threadId}`);
        const good = page.getByTestId("assistant-text").filter({ hasText: "RENDER-DONE" }).getByTestId("mermaid").first();
        await until(async () => (await good.getAttribute("data-state")) === "drawn", { timeout: 30_000, message: "the flowchart to be drawn" });
        const { xml, nodes } = await diagramOf(good);
        assert.equal(nodes, 4);
        urls.push(xml);
        if (page === dark.page) {
          await good.scrollIntoViewIfNeeded();
          await screenshot(page, "diagram-dark", SHOTS);
        }
      }
      assert.notEqual(urls[0], urls[1], "the dark diagram differs from the light one");
      light.assertNoErrors();
      dark.assertNoErrors();
    } finally {
      await light.close();
      await dark.close();
    }
  });

  it("render. a Markdown file with a diagram and a formula previews rendered", { timeout: 120_000 }, async () => {
    assert.ok(threadId, "the first test made the thread");
    const doc = [
      "# Render notes",
      "",
      "```mermaid",
      "sequenceDiagram",
      "  Alice->>Bob: Render hello",
      "  Bob-->>Alice: Render reply",
      "```",
      "",
      "The area of a circle is $\\pi r^2$.",
      "",
      "$$",
      "\\int_0^1 x^2\\,dx = \\frac{1}{3}",
      "$$",
      "",
    ].join("\n");
    const form = new FormData();
    form.append("files", new Blob([doc], { type: "text/markdown" }), "render-notes.md");
    const uploaded = await fetch(`${stack.baseUrl}/api/threads/${threadId}/uploads`, {
      method: "POST",
      body: form,
      headers: { authorization: `Bearer ${stack.token}` },
    });
    assert.equal(uploaded.status, 200, await uploaded.text());

    const s = await stack.page();
    try {
      const { page } = s;
      await page.addInitScript(watchPage);
      await page.goto(`/threads/${threadId}/artifacts`);
      await page.getByTestId("artifact-row").filter({ hasText: "render-notes.md" }).click();
      const view = page.getByTestId("artifact-view");
      await view.locator("h1", { hasText: "Render notes" }).waitFor();
      const diagram = view.getByTestId("mermaid");
      await until(async () => (await diagram.getAttribute("data-state")) === "drawn", { timeout: 30_000, message: "the sequence diagram to be drawn" });
      const { text, active, loaded } = await diagramOf(diagram);
      assert.ok(loaded);
      assert.ok(text.includes("Render hello") && text.includes("Render reply"), text);
      assert.deepEqual(active, []);
      assert.equal(await view.locator(".katex").count(), 2);
      assert.equal(await view.locator(".katex-display").count(), 1);
      await screenshot(page, "artifact-preview", SHOTS);
      assert.equal(await page.evaluate(() => window.__pwned), undefined);
      s.assertNoErrors();
    } finally {
      await s.close();
    }
  });
});
