// Exporting the conversation as a file: a small menu of the formats, each fetching
// `GET /api/threads/{id}/export` (the session cookie goes with it; the server names the file
// after the title) and saving the answer, so that a failure shows as a message rather than
// as a saved error page.
import { type KeyboardEvent, useEffect, useRef, useState } from "react";
import { errorFrom, errorMessage } from "../api/http";
import { Icon } from "../components/Icon";
import { useToast } from "../components/Toasts";
import { t as tr, useT } from "../i18n";
import { dispositionName, saveBlob } from "../lib/download";

/** The formats offered, in menu order. */
export const EXPORT_FORMATS = ["markdown", "json"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** Where a thread's export in `format` downloads from. */
export function exportUrl(threadId: string, format: ExportFormat): string {
  return `/api/threads/${encodeURIComponent(threadId)}/export?format=${format}`;
}

/** Fetches the export and saves it (throws the server's error). */
export async function downloadExport(threadId: string, format: ExportFormat): Promise<void> {
  let response: Response;
  try {
    response = await fetch(exportUrl(threadId, format), { credentials: "same-origin" });
  } catch {
    throw new Error(tr("errors.network_error"));
  }
  if (!response.ok) throw await errorFrom(response);
  const fallback = `conversation.${format === "json" ? "json" : "md"}`;
  saveBlob(dispositionName(response.headers.get("content-disposition")) ?? fallback, await response.blob());
}

export function ExportMenu({ threadId }: { threadId: string }) {
  const t = useT();
  const toast = useToast();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const save = (format: ExportFormat) => {
    setOpen(false);
    setBusy(true);
    downloadExport(threadId, format)
      .catch((e: unknown) => toast({ kind: "error", message: t("export.failed", { error: errorMessage(e) }) }))
      .finally(() => setBusy(false));
  };
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!open) return;
    root.current?.querySelector<HTMLButtonElement>("[role=menuitem]")?.focus();
    const outside = (e: MouseEvent) => {
      if (!root.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("mousedown", outside);
    return () => document.removeEventListener("mousedown", outside);
  }, [open]);

  const onMenuKey = (e: KeyboardEvent<HTMLDivElement>) => {
    const items = Array.from(root.current?.querySelectorAll<HTMLButtonElement>("[role=menuitem]") ?? []);
    const at = items.indexOf(document.activeElement as HTMLButtonElement);
    if (e.key === "Escape") {
      e.preventDefault();
      setOpen(false);
      button.current?.focus();
    } else if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      const step = e.key === "ArrowDown" ? 1 : -1;
      items[(at + step + items.length) % items.length]?.focus();
    }
  };

  return (
    <div className="export-menu" ref={root} onKeyDown={onMenuKey}>
      <button
        ref={button}
        type="button"
        className="btn btn-sm btn-ghost"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-busy={busy}
        disabled={busy}
        onClick={() => setOpen(!open)}
        data-testid="export-button"
      >
        <Icon name="download" size={14} /> {t("export.button")}
      </button>
      {open && (
        <div className="export-menu-list" role="menu" aria-label={t("export.menu")}>
          {EXPORT_FORMATS.map((format) => (
            <button
              key={format}
              type="button"
              role="menuitem"
              className="export-menu-item"
              onClick={() => save(format)}
              data-testid={`export-${format}`}
            >
              {t(`export.${format}`)}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
