import { basename } from "../../lib/fileKind";

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
