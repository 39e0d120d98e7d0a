import { ErrorState, Spinner } from "../../components/States";
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
  return (
    <object className="pdf-frame" data={url} type="application/pdf" aria-label={`PDF ${basename(path)}`}>
      <p>
        This browser cannot show PDFs inline. <a href={url}>Open {basename(path)}</a>
      </p>
    </object>
  );
}

/** An office file as the PDF the server renders of it (in the sandbox, on first view). */
export function OfficePreview({ url, path }: { url: string; path: string }) {
  const { blobUrl, error, loading } = useBlobUrl(`${url}?preview=pdf`);
  if (loading) return <Spinner label="Rendering it as PDF…" />;
  if (error !== null || !blobUrl) {
    return <ErrorState message={`No preview: ${error ?? "nothing came back"}. Download it to open it.`} />;
  }
  return (
    <object className="pdf-frame" data={blobUrl} type="application/pdf" aria-label={`PDF of ${basename(path)}`} data-testid="office-preview">
      <p>
        This browser cannot show PDFs inline. <a href={`${url}?preview=pdf`}>Open the PDF of {basename(path)}</a>
      </p>
    </object>
  );
}
