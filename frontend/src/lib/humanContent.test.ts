import { describe, expect, it } from "vitest";
import { editedContent, humanContent } from "./humanContent";

const image = { type: "image", mimeType: "image/png", data: "iVBOR" };

describe("humanContent", () => {
  it("is the trimmed text alone, or text and image blocks, or nothing", () => {
    expect(humanContent("  hi  ", [])).toBe("hi");
    expect(humanContent("look", [image])).toEqual([{ type: "text", text: "look" }, image]);
    expect(humanContent(" ", [image])).toEqual([image]);
    expect(humanContent(" ", [])).toBeUndefined();
  });
});

describe("editedContent", () => {
  it("replaces the text and keeps the attached files and images", () => {
    const files = "old\n\n<uploaded_files>\n- /mnt/user-data/uploads/a.csv\n</uploaded_files>";
    expect(editedContent(files, " new ")).toBe("new\n\n<uploaded_files>\n- /mnt/user-data/uploads/a.csv\n</uploaded_files>");
    expect(editedContent([{ type: "text", text: "old" }, image], "new")).toEqual([{ type: "text", text: "new" }, image]);
    expect(editedContent([{ type: "text", text: "old" }, image], "")).toEqual([image]);
  });

  it("is nothing without text or images", () => {
    expect(editedContent("old", "  ")).toBeUndefined();
    expect(editedContent("old\n\n<uploaded_files>\n- /x\n</uploaded_files>", "")).toBeUndefined();
  });
});
