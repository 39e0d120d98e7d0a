// One file: its name, size and date, a Download button, and a preview that fits its type.
import { downloadUrl } from "../api/client";
import type { Artifact } from "../api/types";
import { Icon } from "../components/Icon";
import { EmptyState } from "../components/States";
import { useT } from "../i18n";
import { basename, previewKind } from "../lib/fileKind";
import { formatBytes, formatDate } from "../lib/format";
import { ImagePreview, OfficePreview, PdfPreview } from "./previews/MediaPreviews";
import { SkillPreview } from "./previews/SkillPreview";
import { CodePreview, CsvPreview, HtmlPreview, JsonPreview, MarkdownPreview, PlainTextPreview } from "./previews/TextPreviews";

const MAX_TEXT_PREVIEW = 2 * 1024 * 1024;

function Preview({ artifact, threadId }: { artifact: Artifact; threadId: string }) {
  const t = useT();
  const kind = previewKind(artifact.virtual_path, artifact.content_type);
  const props = { url: artifact.artifact_url, path: artifact.virtual_path };
  const textual = ["markdown", "code", "text", "json", "csv", "html"].includes(kind);
  if (textual && artifact.size > MAX_TEXT_PREVIEW) {
    return (
      <EmptyState icon="file" title={t("artifacts.tooLarge")}>
        {t("artifacts.tooLargeBody", { size: formatBytes(artifact.size) })}
      </EmptyState>
    );
  }
  switch (kind) {
    case "skill":
      return <SkillPreview {...props} threadId={threadId} />;
    case "markdown":
      return <MarkdownPreview {...props} />;
    case "html":
      return <HtmlPreview {...props} />;
    case "image":
      return <ImagePreview {...props} />;
    case "pdf":
      return <PdfPreview {...props} />;
    case "office":
      return <OfficePreview {...props} />;
    case "csv":
      return <CsvPreview {...props} />;
    case "json":
      return <JsonPreview {...props} />;
    case "code":
      return <CodePreview {...props} />;
    case "text":
      return <PlainTextPreview {...props} />;
    case "binary":
      return (
        <EmptyState icon="file" title={t("artifacts.noPreview")}>
          {t("artifacts.downloadToOpen")}
        </EmptyState>
      );
  }
}

export function ArtifactView({ artifact, threadId, onBack }: { artifact: Artifact; threadId: string; onBack?: () => void }) {
  const t = useT();
  return (
    <div className="artifact-view" data-testid="artifact-view">
      <div className="artifact-view-head">
        {onBack && (
          <button type="button" className="btn btn-ghost btn-sm" onClick={onBack} aria-label={t("artifacts.backToFiles")}>
            <span className="flip" aria-hidden="true">
              <Icon name="chevron" size={14} />
            </span>
            {t("artifacts.files")}
          </button>
        )}
        <div className="artifact-title">
          <h3 title={artifact.virtual_path}>{basename(artifact.virtual_path)}</h3>
          <p className="muted small">
            {formatBytes(artifact.size)} · <time dateTime={artifact.modified_at}>{formatDate(artifact.modified_at)}</time>
          </p>
        </div>
        <a className="btn btn-sm" href={downloadUrl(artifact.artifact_url)} download={basename(artifact.virtual_path)}>
          <Icon name="download" size={14} /> {t("artifacts.download")}
        </a>
      </div>
      <div className="artifact-preview">
        <Preview key={artifact.artifact_url + artifact.modified_at} artifact={artifact} threadId={threadId} />
      </div>
    </div>
  );
}
