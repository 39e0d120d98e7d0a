// Export and Import on Settings → Memory: everything remembered as a JSON file, and back.
import { useRef, useState } from "react";
import { api } from "../api/client";
import { errorMessage } from "../api/http";
import type { MemoryExport } from "../api/types";
import { Icon } from "../components/Icon";
import { saveJson } from "../lib/download";
import { pluralize } from "../lib/format";

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
    throw new Error("This file is not JSON.");
  }
  if (!data || typeof data !== "object" || !Array.isArray((data as { facts?: unknown }).facts)) {
    throw new Error("This file is not a memory export: it has no list of facts.");
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
  const [busy, setBusy] = useState(false);
  const picker = useRef<HTMLInputElement>(null);

  const run = async (action: () => Promise<string>, failure: string) => {
    setBusy(true);
    try {
      onResult({ ok: true, message: await action() });
    } catch (e) {
      onResult({ ok: false, message: `${failure}: ${errorMessage(e)}` });
    } finally {
      setBusy(false);
    }
  };

  const exportAll = () =>
    run(async () => {
      const data = await api.exportMemory();
      saveJson(EXPORT_FILENAME, data);
      return `Exported ${pluralize(data.facts.length, "fact")} to ${EXPORT_FILENAME}.`;
    }, "Export failed");

  const importFile = (file: File) =>
    run(async () => {
      const r = await api.importMemory(exportOf(await file.text()));
      onImported();
      const notes = [
        r.duplicates > 0 && `${pluralize(r.duplicates, "fact")} already remembered`,
        r.not_kept > 0 && `${pluralize(r.not_kept, "fact")} not kept (over the limit)`,
        r.evicted > 0 && `${pluralize(r.evicted, "older fact")} forgotten to make room`,
      ].filter(Boolean);
      return `Imported ${pluralize(r.count, "fact")}${notes.length ? ` (${notes.join("; ")})` : ""}.`;
    }, "Import failed");

  return (
    <>
      <button type="button" className="btn btn-sm" onClick={() => void exportAll()} disabled={busy}>
        <Icon name="download" size={14} /> Export
      </button>
      <button type="button" className="btn btn-sm" onClick={() => picker.current?.click()} disabled={busy}>
        <Icon name="upload" size={14} /> Import
      </button>
      <input
        ref={picker}
        type="file"
        accept="application/json,.json"
        hidden
        aria-label="Memory file to import"
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
