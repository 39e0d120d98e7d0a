// Files grouped by folder (outputs first), with size and date.
import type { Artifact } from "../api/types";
import { Icon } from "../components/Icon";
import { useT } from "../i18n";
import { basename } from "../lib/fileKind";
import { formatBytes, formatDate } from "../lib/format";

const ORDER = ["outputs", "uploads", "workspace"];

function folderOf(path: string): string {
  const m = /^\/mnt\/user-data\/([^/]+)\//.exec(path);
  return m?.[1] ?? "other";
}

export function groupByFolder(artifacts: Artifact[]): [string, Artifact[]][] {
  const groups = new Map<string, Artifact[]>();
  for (const a of artifacts) {
    const f = folderOf(a.virtual_path);
    groups.set(f, [...(groups.get(f) ?? []), a]);
  }
  return [...groups.entries()].sort(
    ([a], [b]) => (ORDER.indexOf(a) + 1 || 99) - (ORDER.indexOf(b) + 1 || 99),
  );
}

function relative(path: string, folder: string): string {
  return path.replace(`/mnt/user-data/${folder}/`, "");
}

export function ArtifactList({
  artifacts,
  selected,
  onSelect,
}: {
  artifacts: Artifact[];
  selected: string | null;
  onSelect: (path: string) => void;
}) {
  const t = useT();
  // The folders' names as people read them (their paths stay as they are).
  const folderName = (folder: string) => t(`artifacts.folders.${folder}`, { defaultValue: folder });
  return (
    <div className="artifact-list" data-testid="artifact-list">
      {groupByFolder(artifacts).map(([folder, items]) => (
        <section key={folder} aria-label={folderName(folder)}>
          <h3 className="folder-title">
            <Icon name="folder" size={14} /> {folderName(folder)}
          </h3>
          <ul>
            {items.map((a) => (
              <li key={a.virtual_path}>
                <button
                  type="button"
                  className={`artifact-row ${selected === a.virtual_path ? "selected" : ""}`}
                  aria-current={selected === a.virtual_path ? "true" : undefined}
                  onClick={() => onSelect(a.virtual_path)}
                  title={a.virtual_path}
                  data-testid="artifact-row"
                >
                  <Icon name="file" size={14} />
                  <span className="artifact-name">{relative(a.virtual_path, folder) || basename(a.virtual_path)}</span>
                  <span className="artifact-meta">
                    {formatBytes(a.size)} · <time dateTime={a.modified_at}>{formatDate(a.modified_at)}</time>
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}
