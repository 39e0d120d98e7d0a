// Exporting the conversation as a file: a small menu of the formats, each a download link
// to `GET /api/threads/{id}/export` (the session cookie goes with it; the server names the
// file after the title).
import { type KeyboardEvent, useEffect, useRef, useState } from "react";
import { Icon } from "../components/Icon";
import { useT } from "../i18n";

/** The formats offered, in menu order. */
export const EXPORT_FORMATS = ["markdown", "json"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** Where a thread's export in `format` downloads from. */
export function exportUrl(threadId: string, format: ExportFormat): string {
  return `/api/threads/${encodeURIComponent(threadId)}/export?format=${format}`;
}

export function ExportMenu({ threadId }: { threadId: string }) {
  const t = useT();
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!open) return;
    root.current?.querySelector<HTMLAnchorElement>("a[role=menuitem]")?.focus();
    const outside = (e: MouseEvent) => {
      if (!root.current?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("mousedown", outside);
    return () => document.removeEventListener("mousedown", outside);
  }, [open]);

  const onMenuKey = (e: KeyboardEvent<HTMLDivElement>) => {
    const items = Array.from(root.current?.querySelectorAll<HTMLAnchorElement>("a[role=menuitem]") ?? []);
    const at = items.indexOf(document.activeElement as HTMLAnchorElement);
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
        onClick={() => setOpen(!open)}
        data-testid="export-button"
      >
        <Icon name="download" size={14} /> {t("export.button")}
      </button>
      {open && (
        <div className="export-menu-list" role="menu" aria-label={t("export.menu")}>
          {EXPORT_FORMATS.map((format) => (
            <a
              key={format}
              role="menuitem"
              className="export-menu-item"
              href={exportUrl(threadId, format)}
              download
              onClick={() => setOpen(false)}
              data-testid={`export-${format}`}
            >
              {t(`export.${format}`)}
            </a>
          ))}
        </div>
      )}
    </div>
  );
}
