import { Icon } from "../components/Icon";
import { useT } from "../i18n";
import { basename } from "../lib/fileKind";

export function FileChips({ paths, onOpen, label }: { paths: string[]; onOpen?: (path: string) => void; label?: string }) {
  const t = useT();
  return (
    <ul className="file-chips" aria-label={label ?? t("chat.files.label")}>
      {paths.map((p) => (
        <li key={p}>
          {onOpen ? (
            <button type="button" className="file-chip" onClick={() => onOpen(p)} title={p} data-testid="file-chip">
              <Icon name="file" size={14} /> {basename(p)}
            </button>
          ) : (
            <span className="file-chip" title={p}>
              <Icon name="file" size={14} /> {basename(p)}
            </span>
          )}
        </li>
      ))}
    </ul>
  );
}
