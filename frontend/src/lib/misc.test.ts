import { describe, expect, it } from "vitest";
import { threadTitle } from "../api/types";
import { basename, extension, languageFor, previewKind } from "./fileKind";
import { formatBytes, formatRelative } from "./format";
import { splitFrontmatter } from "./frontmatter";
import { codeFence, hastText } from "./markdownUtil";
import { splitAttachments, withAttachments } from "./uploads";

describe("file kinds", () => {
  it("pick a preview from the name and content type", () => {
    expect(previewKind("/o/a.skill")).toBe("skill");
    expect(previewKind("/o/README.md")).toBe("markdown");
    expect(previewKind("/o/page.html")).toBe("html");
    expect(previewKind("/o/chart.svg")).toBe("image");
    expect(previewKind("/o/photo.PNG")).toBe("image");
    expect(previewKind("/o/doc.pdf")).toBe("pdf");
    expect(previewKind("/o/plan.docx")).toBe("office");
    expect(previewKind("/o/Budget.XLSX")).toBe("office");
    expect(previewKind("/o/deck.pptx")).toBe("office");
    expect(previewKind("/o/data.tsv")).toBe("csv");
    expect(previewKind("/o/data.json")).toBe("json");
    expect(previewKind("/o/main.py")).toBe("code");
    expect(previewKind("/o/notes.txt")).toBe("text");
    expect(previewKind("/o/Makefile")).toBe("code");
    expect(previewKind("/o/blob.bin", "application/octet-stream")).toBe("binary");
    expect(previewKind("/o/x.unknown", "text/plain; charset=utf-8")).toBe("text");
  });

  it("split names", () => {
    expect(basename("/mnt/user-data/outputs/a.b.skill")).toBe("a.b.skill");
    expect(extension("/x/.hidden")).toBe("");
    expect(languageFor("/x/SKILL.md")).toBe("markdown");
    expect(languageFor("/x/a.rs")).toBe("rust");
  });
});

describe("formatting", () => {
  it("sizes", () => {
    expect(formatBytes(0)).toBe("0 B");
    expect(formatBytes(1536)).toBe("1.5 KB");
    expect(formatBytes(50 * 1024 * 1024)).toBe("50 MB");
  });

  it("relative times", () => {
    const now = new Date("2026-01-01T12:00:00Z");
    expect(formatRelative("2026-01-01T11:59:50Z", now)).toBe("just now");
    expect(formatRelative("2026-01-01T11:30:00Z", now)).toBe("30 min ago");
    expect(formatRelative("2026-01-01T07:00:00Z", now)).toBe("5 h ago");
    expect(formatRelative("not a date", now)).toBe("");
  });

  it("thread titles prefer the person's rename, then the generated title", () => {
    expect(threadTitle({ metadata: { title: "Mine" }, values: { title: "Generated" } })).toBe("Mine");
    expect(threadTitle({ metadata: {}, values: { title: "Generated" } })).toBe("Generated");
    expect(threadTitle({ metadata: { title: "  " }, values: {} })).toBe("New chat");
  });
});

describe("markdown helpers", () => {
  it("fence code containing backticks", () => {
    expect(codeFence("a ``` b", "md")).toBe("````md\na ``` b\n````");
    expect(codeFence("x\n")).toBe("```\nx\n```");
  });

  it("read text out of a hast tree", () => {
    expect(hastText({ type: "element", children: [{ type: "text", value: "a" }, { type: "element", children: [{ type: "text", value: "b" }] }] })).toBe("ab");
  });

  it("split SKILL.md frontmatter", () => {
    expect(splitFrontmatter("---\nname: x\ndescription: y\n---\n# Body\n")).toEqual({ frontmatter: "name: x\ndescription: y", body: "# Body\n" });
    expect(splitFrontmatter("# No frontmatter")).toEqual({ frontmatter: null, body: "# No frontmatter" });
  });
});

describe("attachments", () => {
  it("round-trip through the message text", () => {
    const text = withAttachments("look at this", ["/mnt/user-data/uploads/a.csv", "/mnt/user-data/uploads/b.txt"]);
    expect(text).toContain("/mnt/user-data/uploads/a.csv");
    expect(splitAttachments(text)).toEqual({ text: "look at this", files: ["/mnt/user-data/uploads/a.csv", "/mnt/user-data/uploads/b.txt"] });
    expect(withAttachments("plain", [])).toBe("plain");
    expect(splitAttachments("no files")).toEqual({ text: "no files", files: [] });
  });

  it("leave out the notes the server adds under a document", () => {
    const text =
      "read\n\n<uploaded_files>\n- /mnt/user-data/uploads/r.pdf\n  Markdown version: /mnt/user-data/uploads/r.pdf.md\n- /mnt/user-data/uploads/b.pdf\n  No Markdown version: broken\n</uploaded_files>";
    expect(splitAttachments(text)).toEqual({ text: "read", files: ["/mnt/user-data/uploads/r.pdf", "/mnt/user-data/uploads/b.pdf"] });
  });
});

describe("imagesOf", () => {
  it("reads LangChain and OpenAI image blocks and never a non-image address", async () => {
    const { imagesOf } = await import("./messages");
    expect(
      imagesOf([
        { type: "text", text: "hi" },
        { type: "image", mimeType: "image/png", data: "AAAA" },
        { type: "image", url: "https://example.com/a.png" },
        { type: "image_url", image_url: { url: "data:image/gif;base64,R0lG" } },
        { type: "image_url", image_url: "javascript:alert(1)" },
        { type: "image", mimeType: "text/html", data: "PGgxPg==" },
        { type: "image", url: "file:///etc/passwd" },
      ]),
    ).toEqual(["data:image/png;base64,AAAA", "https://example.com/a.png", "data:image/gif;base64,R0lG"]);
    expect(imagesOf("plain text")).toEqual([]);
  });
});
