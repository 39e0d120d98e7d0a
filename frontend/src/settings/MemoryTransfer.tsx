// Export and Import on Settings → Memory: everything remembered as a JSON file, and back.
import { useRef, useState } from "react";
import { api } from "../api/client";
import { errorMessage } from "../api/http";
import type { MemoryExport } from "../api/types";
import { Icon } from "../components/Icon";
import { saveJson } from "../lib/download";
import { t as translate, useT } from "../i18n";

/** The file Export saves. */
export const EXPORT_FILENAME = "antler-memory.json";

/** What the last export or import came to, for the page to show. */
export interface TransferResult {
  ok: boolean;
  message: string;
}

/** An export file's content, or why it is not one. */
function exportOf(text: string): MemoryExport {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new Error(translate("settings.transfer.notJson"));
  }
  if (!data || typeof data !== "object" || !Array.isArray((data as { facts?: unknown }).facts)) {
    throw new Error(translate("settings.transfer.notExport"));
  }
  return data as MemoryExport;
}

/** The two buttons; `onResult` says how it went, `onImported` follows a successful import. */
export function MemoryTransfer({
  onResult,
  onImported,
}: {
  onResult: (result: TransferResult) => void;
  onImported: () => void;
}) {
  const t = useT();
  const [busy, setBusy] = useState(false);
  const picker = useRef<HTMLInputElement>(null);

  /** `failure` says what went wrong, given the error's message. */
  const run = async (action: () => Promise<string>, failure: (error: string) => string) => {
    setBusy(true);
    try {
      onResult({ ok: true, message: await action() });
    } catch (e) {
      onResult({ ok: false, message: failure(errorMessage(e)) });
    } finally {
      setBusy(false);
    }
  };

  const exportAll = () =>
    run(async () => {
      const data = await api.exportMemory();
      saveJson(EXPORT_FILENAME, data);
      return t("settings.transfer.exported", { count: data.facts.length, file: EXPORT_FILENAME });
    }, (error) => t("settings.transfer.exportFailed", { error }));

  const importFile = (file: File) =>
    run(async () => {
      const r = await api.importMemory(exportOf(await file.text()));
      onImported();
      const notes = [
        r.duplicates > 0 && t("settings.transfer.duplicates", { count: r.duplicates }),
        r.not_kept > 0 && t("settings.transfer.notKept", { count: r.not_kept }),
        r.evicted > 0 && t("settings.transfer.evicted", { count: r.evicted }),
      ].filter(Boolean);
      return notes.length
        ? t("settings.transfer.importedNotes", { count: r.count, notes: notes.join(t("settings.transfer.noteSeparator")) })
        : t("settings.transfer.imported", { count: r.count });
    }, (error) => t("settings.transfer.importFailed", { error }));

  return (
    <>
      <button type="button" className="btn btn-sm" onClick={() => void exportAll()} disabled={busy}>
        <Icon name="download" size={14} /> {t("settings.transfer.export")}
      </button>
      <button type="button" className="btn btn-sm" onClick={() => picker.current?.click()} disabled={busy}>
        <Icon name="upload" size={14} /> {t("settings.transfer.import")}
      </button>
      <input
        ref={picker}
        type="file"
        accept="application/json,.json"
        hidden
        aria-label={t("settings.transfer.fileLabel")}
        data-testid="memory-import-file"
        onChange={(e) => {
          const file = e.target.files?.[0];
          // Cleared so picking the same file again imports it again.
          e.target.value = "";
          if (file) void importFile(file);
        }}
      />
    </>
  );
}
