// The files panel beside the chat; its width is remembered.
import { type CSSProperties, useEffect, useState } from "react";
import { Link } from "react-router-dom";
import { Icon } from "../components/Icon";
import { useT } from "../i18n";
import { readSetting, writeSetting } from "../lib/storage";
import { ArtifactBrowser } from "./ArtifactBrowser";
import { ResizeHandle } from "./ResizeHandle";

const KEY = "antler-panel-width";
const MIN = 280;

function maxWidth(): number {
  return Math.max(MIN, Math.round(window.innerWidth * 0.7));
}

function savedWidth(): number {
  const n = Number(readSetting(KEY));
  return Number.isFinite(n) && n >= MIN ? Math.min(n, maxWidth()) : 460;
}

export function ArtifactPanel({
  threadId,
  selected,
  version,
  onSelect,
  onClose,
}: {
  threadId: string;
  selected: string | null;
  version: number;
  onSelect: (path: string | null) => void;
  onClose: () => void;
}) {
  const [width, setWidth] = useState(savedWidth);
  const t = useT();
  // Saved once the resizing pauses, not on every pointer move.
  useEffect(() => {
    const save = setTimeout(() => writeSetting(KEY, String(width)), 300);
    return () => clearTimeout(save);
  }, [width]);
  return (
    <aside
      className="artifact-panel"
      style={{ "--panel-width": `${width}px` } as CSSProperties}
      aria-label={t("artifacts.files")}
      data-testid="artifact-panel"
      onKeyDown={(e) => {
        // Escape inside the panel closes it (not while a dialog is open).
        if (e.key === "Escape" && !document.querySelector("dialog[open]")) onClose();
      }}
    >
      <ResizeHandle width={width} min={MIN} max={maxWidth()} onResize={setWidth} label={t("artifacts.resizePanel")} />
      <div className="panel-inner">
        <div className="panel-head">
          <h2>{t("artifacts.files")}</h2>
          <Link className="btn btn-ghost btn-sm" to={`/threads/${threadId}/artifacts${selected ? `?file=${encodeURIComponent(selected)}` : ""}`}>
            <Icon name="external" size={14} /> {t("artifacts.openPage")}
          </Link>
          <button type="button" className="btn btn-ghost btn-icon" aria-label={t("artifacts.closePanel")} onClick={onClose}>
            <Icon name="x" />
          </button>
        </div>
        <div className="panel-body">
          <ArtifactBrowser threadId={threadId} selected={selected} onSelect={onSelect} version={version} layout="panel" />
        </div>
      </div>
    </aside>
  );
}
