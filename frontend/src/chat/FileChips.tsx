import { Icon } from "../components/Icon";
import { basename } from "../lib/fileKind";

export function FileChips({ paths, onOpen, label = "Files" }: { paths: string[]; onOpen?: (path: string) => void; label?: string }) {
  return (
    <ul className="file-chips" aria-label={label}>
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
