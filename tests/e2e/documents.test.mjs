// End-to-end test of documents the agent can read, with the full sandbox image: a PDF attached
// in the composer shows "converting" then "readable" on its chip; a broken one "not
// converted" with the reason on hover; the sent message shows the files as chips (the notes
// the server adds under them stay out of the bubble) and the agent is told the Markdown path;
// a Word file opens in the files panel as the PDF the server renders of it.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { strToU8, zipSync } from "fflate";
import { SCREENSHOTS, Stack, lastUserOf, screenshot, sendMessage, threadIdOf, until } from "./harness.mjs";

const SHOTS = join(SCREENSHOTS, "documents");
const stack = new Stack({ screenshots: SHOTS });

/** A one-page PDF saying `text`, with the offsets a real writer computes. */
function pdf(text) {
  const stream = `BT /F1 24 Tf 72 700 Td (${text}) Tj ET`;
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ];
  let out = "%PDF-1.4\n";
  const offsets = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}

/** The smallest Word document LibreOffice opens: one paragraph. */
function docx(text) {
  const xml = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';
  return Buffer.from(
    zipSync({
      "[Content_Types].xml": strToU8(
        `${xml}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
      ),
      "_rels/.rels": strToU8(
        `${xml}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
      ),
      "word/document.xml": strToU8(
        `${xml}<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>${text}</w:t></w:r></w:p></w:body></w:document>`,
      ),
    }),
  );
}

describe("documents the agent can read", { concurrency: false }, () => {
  before(async () => {
    await stack.start({ env: { ANTLER_SANDBOX_IMAGE: "antler-sandbox:full" } });
    console.log(`# server ${stack.baseUrl}, model ${stack.mockUrl}`);
  }, { timeout: 180_000 });

  after(async () => {
    await stack.stop();
  }, { timeout: 120_000 });

  it("y. an attached PDF becomes readable, a broken one says why, the agent is told the Markdown path", { timeout: 120_000 }, async () => {
    const s = await stack.page();
    try {
      const { page } = s;
      await page.goto("/");
      await page.getByTestId("model-label").waitFor();
      await page.getByTestId("file-input").setInputFiles([
        { name: "report.pdf", mimeType: "application/pdf", buffer: pdf("Revenue grew by 42 percent") },
        { name: "broken.pdf", mimeType: "application/pdf", buffer: Buffer.from("%PDF-1.4\nnot really a PDF\n") },
        { name: "plan.docx", mimeType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document", buffer: docx("Launch plan") },
      ]);
      const chip = (name) => page.locator(".attachment", { hasText: name }).getByTestId("markdown-state");
      await page.locator('[data-testid=markdown-state][data-state="done"]').nth(1).waitFor({ timeout: 60_000 });
      await page.locator('[data-testid=markdown-state][data-state="failed"]').waitFor({ timeout: 60_000 });
      assert.equal(await chip("report.pdf").textContent(), "readable");
      assert.equal(await chip("broken.pdf").textContent(), "not converted");
      assert.equal(await chip("plan.docx").textContent(), "readable");
      assert.match(await chip("broken.pdf").getAttribute("title"), /could not convert it/);
      await screenshot(page, "y-documents-converted", SHOTS);

      await sendMessage(page, "summarize the report");
      const threadId = threadIdOf(page);
      await until(async () => (await stack.runsOf(threadId))[0]?.status === "success", { message: "the run to succeed" });
      const bubble = page.getByTestId("human-message");
      assert.equal((await bubble.locator(".bubble").textContent()).trim(), "summarize the report");
      assert.deepEqual((await bubble.getByTestId("file-chip").allTextContents()).map((t) => t.trim()), ["report.pdf", "broken.pdf", "plan.docx"]);
      const told = lastUserOf(await stack.modelRequestFor("summarize the report"));
      assert.match(told, /- \/mnt\/user-data\/uploads\/report\.pdf\n {2}Markdown version: \/mnt\/user-data\/uploads\/report\.pdf\.md/);
      assert.match(told, /broken\.pdf\n {2}No Markdown version: could not convert it/);
      // A Word file previews as the PDF the server renders of it.
      await bubble.getByTestId("file-chip").filter({ hasText: "plan.docx" }).click();
      const preview = page.getByTestId("artifact-panel").getByTestId("office-preview");
      await preview.waitFor({ timeout: 60_000 });
      assert.match(await preview.getAttribute("data"), /^blob:/);
      await screenshot(page, "y-office-preview", SHOTS);
      s.assertNoErrors();
    } finally {
      await s.close();
    }
  });
});
