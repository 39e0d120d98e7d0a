// Images pasted into the message box: read in the browser and sent inline with the message
// (LangChain `{type: "image", mimeType, data}` blocks), so a vision model sees them.
import { useCallback, useState } from "react";
import { t } from "../i18n";
import { uuid } from "../lib/id";

/** One image waiting to be sent. */
export interface PastedImage {
  key: string;
  name: string;
  mimeType: string;
  /** Base64 of the bytes. */
  data: string;
}

/** What the server takes (the same limits it checks). */
export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"];
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
export const MAX_IMAGES = 10;

/** Whether a file can go with a message as an image (type and size the server takes). */
export const isInlineImage = (f: File) => IMAGE_TYPES.includes(f.type) && f.size <= MAX_IMAGE_BYTES;

/** Dropped files: the images that go with the message (only when the model can see), and
 * the rest, to upload. */
export function splitDropped(files: File[], sees: boolean): { inline: File[]; rest: File[] } {
  const inline = sees ? files.filter(isInlineImage) : [];
  return { inline, rest: files.filter((f) => !inline.includes(f)) };
}

/** A `data:` URL to show a pasted image. */
export const imageUrl = (i: Pick<PastedImage, "mimeType" | "data">) => `data:${i.mimeType};base64,${i.data}`;

function readBase64(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onerror = () => reject(reader.error ?? new Error(t("chat.images.readError")));
    reader.onload = () => {
      const url = String(reader.result);
      resolve(url.slice(url.indexOf(",") + 1));
    };
    reader.readAsDataURL(file);
  });
}

export function usePastedImages(onError: (message: string) => void) {
  const [items, setItems] = useState<PastedImage[]>([]);

  const add = useCallback(
    async (files: File[]) => {
      const read: PastedImage[] = [];
      for (const file of files) {
        if (!IMAGE_TYPES.includes(file.type)) {
          onError(t("chat.images.notImage", { name: file.name }));
          continue;
        }
        if (file.size > MAX_IMAGE_BYTES) {
          onError(t("chat.images.tooLarge", { name: file.name }));
          continue;
        }
        try {
          read.push({ key: uuid(), name: file.name || t("chat.images.pastedName"), mimeType: file.type, data: await readBase64(file) });
        } catch (e) {
          onError(t("chat.images.unreadable", { name: file.name, error: String(e) }));
        }
      }
      setItems((prev) => {
        const next = [...prev, ...read];
        if (next.length > MAX_IMAGES) onError(t("chat.images.tooMany", { max: MAX_IMAGES }));
        return next.slice(0, MAX_IMAGES);
      });
    },
    [onError],
  );
  const remove = useCallback((key: string) => setItems((prev) => prev.filter((i) => i.key !== key)), []);
  const clear = useCallback(() => setItems([]), []);
  return { items, add, remove, clear };
}
