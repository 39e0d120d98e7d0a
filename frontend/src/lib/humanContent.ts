// The content of a message the person sends: the text alone, or LangChain content blocks
// when images come with it (`{type: "text"}` first, then the images).
import { textOf } from "./messages";
import { splitAttachments, withAttachments } from "./uploads";

export type HumanContent = string | Record<string, unknown>[];

/** Text and image blocks as one content; none when both are empty. */
export function humanContent(text: string, images: Record<string, unknown>[]): HumanContent | undefined {
  const trimmed = text.trim();
  if (!trimmed && images.length === 0) return undefined;
  return images.length ? [...(trimmed ? [{ type: "text", text: trimmed }] : []), ...images] : trimmed;
}

/** An edited message: the new text, keeping the files and images the original came with. */
export function editedContent(original: unknown, text: string): HumanContent | undefined {
  const { files } = splitAttachments(textOf(original));
  const images = Array.isArray(original)
    ? (original as unknown[]).filter(
        (p): p is Record<string, unknown> => !!p && typeof p === "object" && (p as { type?: unknown }).type !== "text",
      )
    : [];
  // Files alone are not a message (as when sending): there must be text or an image.
  if (!text.trim() && images.length === 0) return undefined;
  return humanContent(withAttachments(text.trim(), files), images);
}
