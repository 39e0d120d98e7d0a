// Files uploaded into the thread for the next message.
import { useCallback, useState } from "react";
import { api } from "../api/client";
import { errorMessage } from "../api/http";
import { t } from "../i18n";

/** A document's Markdown version, as the server reports it. */
export interface MarkdownVersion {
  status: "pending" | "done" | "failed" | "skipped";
  error?: string | null;
}

export interface Attachment {
  key: string;
  name: string;
  status: "uploading" | "done" | "error";
  virtualPath?: string;
  error?: string;
  markdown?: MarkdownVersion;
}

/** How often a pending conversion is asked about. */
const CONVERSION_POLL_MS = 1000;

let counter = 0;

export function useAttachments(ensureThread: () => Promise<string>, onError: (message: string) => void) {
  const [items, setItems] = useState<Attachment[]>([]);

  // Asks the listing until no attachment's conversion is pending (a failure to ask stops).
  const follow = useCallback(async (threadId: string) => {
    for (;;) {
      await new Promise((r) => setTimeout(r, CONVERSION_POLL_MS));
      let listed;
      try {
        listed = (await api.listUploads(threadId)).files;
      } catch {
        return;
      }
      setItems((prev) =>
        prev.map((a) => {
          const found = listed.find((f) => f.virtual_path === a.virtualPath);
          return found?.markdown && a.markdown ? { ...a, markdown: found.markdown } : a;
        }),
      );
      if (!listed.some((f) => f.markdown?.status === "pending")) return;
    }
  }, []);

  const add = useCallback(
    async (files: File[]) => {
      if (!files.length) return;
      const keys = files.map((f) => ({ key: `a${++counter}`, name: f.name }));
      setItems((prev) => [...prev, ...keys.map((k) => ({ ...k, status: "uploading" as const }))]);
      try {
        const threadId = await ensureThread();
        const { files: stored } = await api.uploadFiles(threadId, files);
        setItems((prev) =>
          prev.map((a) => {
            const i = keys.findIndex((k) => k.key === a.key);
            const s = i >= 0 ? stored[i] : undefined;
            return s
              ? { ...a, status: "done", name: s.filename, virtualPath: s.virtual_path, markdown: s.markdown ?? undefined }
              : a;
          }),
        );
        if (stored.some((s) => s.markdown?.status === "pending")) void follow(threadId);
      } catch (e) {
        const message = errorMessage(e);
        setItems((prev) =>
          prev.map((a) => (keys.some((k) => k.key === a.key) ? { ...a, status: "error", error: message } : a)),
        );
        onError(t("chat.uploads.failed", { error: message }));
      }
    },
    [ensureThread, onError, follow],
  );

  const remove = useCallback((key: string) => setItems((prev) => prev.filter((a) => a.key !== key)), []);
  const clear = useCallback(() => setItems([]), []);
  const uploading = items.some((a) => a.status === "uploading");
  const paths = items.filter((a) => a.status === "done" && a.virtualPath).map((a) => a.virtualPath as string);
  return { items, add, remove, clear, uploading, paths };
}
