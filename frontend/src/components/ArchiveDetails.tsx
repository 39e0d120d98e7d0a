// What a `.skill` archive holds and whether it would install (preview and artifact views).
import type { ArchivePreview, InstallFinding } from "../api/types";
import { useT } from "../i18n";
import { formatBytes } from "../lib/format";
import { Icon } from "./Icon";

export function Findings({ findings, title: given }: { findings: InstallFinding[]; title?: string }) {
  const t = useT();
  const title = given ?? t("artifacts.archive.findings");
  if (!findings.length) return null;
  return (
    <section className="findings" aria-label={title} data-testid="findings">
      <h4>
        <Icon name="alert" size={14} /> {title}
      </h4>
      <ul>
        {findings.map((f, i) => (
          <li key={`${f.rule}-${f.path}-${i}`}>
            <code className="finding-rule">{f.rule}</code>
            {f.path && <code className="finding-path">{f.path}</code>}
            <span>{f.message}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function Warnings({ warnings }: { warnings: string[] }) {
  const t = useT();
  if (!warnings.length) return null;
  return (
    <section className="warnings" aria-label={t("artifacts.archive.warnings")}>
      <h4>{t("artifacts.archive.warnings")}</h4>
      <ul>
        {warnings.map((w, i) => (
          <li key={i}>{w}</li>
        ))}
      </ul>
    </section>
  );
}

export function ArchiveSummary({ preview }: { preview: ArchivePreview }) {
  const s = preview.skill;
  const t = useT();
  return (
    <div className="archive-summary" data-testid="archive-summary">
      <div className="archive-head">
        <strong className="archive-name">{s.name ?? t("artifacts.archive.noName")}</strong>
        {s.valid ? (
          <span className="badge badge-ok" data-testid="archive-valid">
            <Icon name="check" size={12} /> {t("artifacts.archive.valid")}
          </span>
        ) : (
          <span className="badge badge-error" data-testid="archive-invalid">
            <Icon name="alert" size={12} /> {t("artifacts.archive.refused")}
          </span>
        )}
      </div>
      {s.description && <p className="archive-desc">{s.description}</p>}
      <dl className="meta-list">
        {s.license && (
          <>
            <dt>{t("artifacts.archive.license")}</dt>
            <dd>{s.license}</dd>
          </>
        )}
        {s.compatibility && (
          <>
            <dt>{t("artifacts.archive.compatibility")}</dt>
            <dd>{s.compatibility}</dd>
          </>
        )}
        {s.allowed_tools.length > 0 && (
          <>
            <dt>{t("artifacts.archive.allowedTools")}</dt>
            <dd>{s.allowed_tools.join(", ")}</dd>
          </>
        )}
      </dl>
      <Findings findings={s.findings} />
      <Warnings warnings={s.warnings} />
    </div>
  );
}

export function EntryList({ preview }: { preview: ArchivePreview }) {
  const t = useT();
  return (
    <details className="entry-list" open>
      <summary>{t("artifacts.archive.entries", { count: preview.entries.length })}</summary>
      <ul>
        {preview.entries.map((e) => (
          <li key={e.path}>
            <code>{e.path}</code>
            <span className="muted">{e.path.endsWith("/") ? "" : formatBytes(e.size)}</span>
          </li>
        ))}
      </ul>
    </details>
  );
}
