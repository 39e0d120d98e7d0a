import { ErrorState, Spinner } from "../../components/States";
import { useT } from "../../i18n";
import { basename } from "../../lib/fileKind";
import { useBlobUrl } from "../useArtifacts";

export function ImagePreview({ url, path }: { url: string; path: string }) {
  return (
    <div className="image-preview">
      <img src={url} alt={basename(path)} />
    </div>
  );
}

export function PdfPreview({ url, path }: { url: string; path: string }) {
  const t = useT();
  const name = basename(path);
  return (
    <object className="pdf-frame" data={url} type="application/pdf" aria-label={t("artifacts.pdf.label", { name })}>
      <p>
        {t("artifacts.pdf.noInline")} <a href={url}>{t("artifacts.pdf.open", { name })}</a>
      </p>
    </object>
  );
}

/** An office file as the PDF the server renders of it (in the sandbox, on first view). */
export function OfficePreview({ url, path }: { url: string; path: string }) {
  const t = useT();
  const name = basename(path);
  const { blobUrl, error, loading } = useBlobUrl(`${url}?preview=pdf`);
  if (loading) return <Spinner label={t("artifacts.pdf.rendering")} />;
  if (error !== null || !blobUrl) {
    return <ErrorState message={t("artifacts.pdf.noPreview", { error: error ?? t("artifacts.pdf.nothingCameBack") })} />;
  }
  return (
    <object className="pdf-frame" data={blobUrl} type="application/pdf" aria-label={t("artifacts.pdf.of", { name })} data-testid="office-preview">
      <p>
        {t("artifacts.pdf.noInline")} <a href={`${url}?preview=pdf`}>{t("artifacts.pdf.openOf", { name })}</a>
      </p>
    </object>
  );
}
