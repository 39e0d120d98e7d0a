// The list of a thread's files and the selected file's preview (panel or full page).
import { EmptyState, ErrorState, Spinner } from "../components/States";
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
  if (!artifacts) {
    if (error) return <ErrorState message={error} onRetry={reload} />;
    return <Spinner label="Loading files…" />;
  }
  const current = selected ? artifacts.find((a) => a.virtual_path === selected) : undefined;
  // A refresh that failed keeps the last list on screen, and says so.
  const stale = error ? (
    <div className="banner banner-warn" role="alert">
      Could not refresh the files ({error}).{" "}
      <button type="button" className="btn btn-ghost btn-sm" onClick={reload}>
        Retry
      </button>
    </div>
  ) : null;
  const list = (
    <>
      {stale}
      {artifacts.length === 0 ? (
        <EmptyState icon="folder" title="No files yet">
          Files the agent writes and files you upload appear here.
        </EmptyState>
      ) : (
        <ArtifactList artifacts={artifacts} selected={selected} onSelect={onSelect} />
      )}
    </>
  );
  const missing =
    selected && !current ? (
      loading ? (
        <Spinner label="Loading files…" />
      ) : (
        <EmptyState icon="alert" title="File not found">
          <code>{selected}</code> is not among this conversation’s files.
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
      <nav className="artifact-page-list" aria-label="Files">
        {list}
      </nav>
      <section className="artifact-page-preview" aria-label="Preview">
        {current ? (
          <ArtifactView artifact={current} threadId={threadId} />
        ) : (
          missing ?? (
            <EmptyState icon="file" title="Select a file">
              Choose a file on the left to preview it.
            </EmptyState>
          )
        )}
      </section>
    </div>
  );
}
