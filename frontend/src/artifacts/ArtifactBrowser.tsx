// The list of a thread's files and the selected file's preview (panel or full page).
import { EmptyState, ErrorState, Spinner } from "../components/States";
import { useT } from "../i18n";
import { ArtifactList } from "./ArtifactList";
import { ArtifactView } from "./ArtifactView";
import { useArtifacts } from "./useArtifacts";

export function ArtifactBrowser({
  threadId,
  selected,
  onSelect,
  version,
  layout,
}: {
  threadId: string;
  selected: string | null;
  onSelect: (path: string | null) => void;
  version: number;
  layout: "panel" | "page";
}) {
  const { artifacts, error, loading, reload } = useArtifacts(threadId, version);
  const t = useT();
  if (!artifacts) {
    if (error) return <ErrorState message={error} onRetry={reload} />;
    return <Spinner label={t("artifacts.loadingFiles")} />;
  }
  const current = selected ? artifacts.find((a) => a.virtual_path === selected) : undefined;
  // A refresh that failed keeps the last list on screen, and says so.
  const stale = error ? (
    <div className="banner banner-warn" role="alert">
      {t("artifacts.refreshFailed", { error })}{" "}
      <button type="button" className="btn btn-ghost btn-sm" onClick={reload}>
        {t("common.retry")}
      </button>
    </div>
  ) : null;
  const list = (
    <>
      {stale}
      {artifacts.length === 0 ? (
        <EmptyState icon="folder" title={t("artifacts.noFiles")}>
          {t("artifacts.noFilesBody")}
        </EmptyState>
      ) : (
        <ArtifactList artifacts={artifacts} selected={selected} onSelect={onSelect} />
      )}
    </>
  );
  const missing =
    selected && !current ? (
      loading ? (
        <Spinner label={t("artifacts.loadingFiles")} />
      ) : (
        <EmptyState icon="alert" title={t("artifacts.notFound")}>
          <code>{selected}</code> {t("artifacts.notAmongFiles")}
        </EmptyState>
      )
    ) : null;

  if (layout === "panel") {
    if (current) return <ArtifactView artifact={current} threadId={threadId} onBack={() => onSelect(null)} />;
    return (
      <>
        {missing}
        {list}
      </>
    );
  }
  return (
    <div className="artifact-page-grid">
      <nav className="artifact-page-list" aria-label={t("artifacts.files")}>
        {list}
      </nav>
      <section className="artifact-page-preview" aria-label={t("artifacts.preview")}>
        {current ? (
          <ArtifactView artifact={current} threadId={threadId} />
        ) : (
          missing ?? (
            <EmptyState icon="file" title={t("artifacts.selectFile")}>
              {t("artifacts.selectFileBody")}
            </EmptyState>
          )
        )}
      </section>
    </div>
  );
}
