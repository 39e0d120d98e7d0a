// Saving data the page holds as a file, through a temporary link (no server round trip).

/** Offers `data` as a pretty-printed JSON file named `filename`. */
export function saveJson(filename: string, data: unknown): void {
  saveBlob(filename, new Blob([`${JSON.stringify(data, null, 2)}\n`], { type: "application/json" }));
}

/** The file name a `Content-Disposition` header gives (RFC 6266: `filename*` first). */
export function dispositionName(header: string | null): string | undefined {
  if (!header) return undefined;
  const star = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header)?.[1];
  if (star) {
    try {
      return decodeURIComponent(star.trim());
    } catch {
      // malformed: the plain name below
    }
  }
  return /filename\s*=\s*"((?:[^"\\]|\\.)*)"/.exec(header)?.[1]?.replace(/\\(.)/g, "$1")
    ?? /filename\s*=\s*([^;]+)/.exec(header)?.[1]?.trim();
}

/** Offers `blob` as a file named `filename`. */
export function saveBlob(filename: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  link.rel = "noopener";
  document.body.append(link);
  link.click();
  link.remove();
  // Revoked after the click has been handled: the browser has started the download by then.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
