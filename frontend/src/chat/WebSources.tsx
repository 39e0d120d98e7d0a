// Web pages as the chat shows them: a reply's numbered Sources list (what its citations `[n]`
// link to) and what a `web_search` or `web_fetch` card found. Titles and addresses come from
// the pages: they are only ever text, and only http(s) addresses become links.
import type { ReactNode } from "react";
import { useT } from "../i18n";
import { type WebSource, type WebView, safeHref, sourceAnchor } from "../lib/webSources";

/** A page's link (a new tab), or its text when its address is not http(s). */
function PageLink({ url, children, className }: { url: string; children: ReactNode; className?: string }) {
  const href = safeHref(url);
  return href ? (
    <a href={href} target="_blank" rel="noopener noreferrer" className={className} title={url}>
      {children}
    </a>
  ) : (
    <span className={className}>{children}</span>
  );
}

/** A reply's sources, numbered as its answer cites them. */
export function SourceList({ sources, turnKey }: { sources: readonly WebSource[]; turnKey: string }) {
  const t = useT();
  if (sources.length === 0) return null;
  return (
    <section className="sources" aria-label={t("chat.web.sources")} data-testid="sources">
      <h4 className="sources-title">{t("chat.web.sources")}</h4>
      <ol className="sources-list">
        {sources.map((s) => (
          <li
            key={s.index}
            id={sourceAnchor(turnKey, s.index)}
            tabIndex={-1}
            className="source-item"
            data-testid="source-item"
            data-kind={s.kind}
          >
            <span className="source-num">[{s.index}]</span>{" "}
            <PageLink url={s.url} className="source-title">
              {s.title || s.domain || s.url}
            </PageLink>
            {s.domain && <span className="source-domain"> — {s.domain}</span>}
          </li>
        ))}
      </ol>
    </section>
  );
}

/** Below a web tool card's heading: the results of a search, or the page a fetch read. */
export function WebFindings({ view }: { view: WebView }) {
  const t = useT();
  if (view.kind === "search") {
    if (view.results.length === 0) {
      return (
        <div className="tool-web muted" data-testid="tool-web">
          {t("chat.web.noResults")}
        </div>
      );
    }
    return (
      <ol className="tool-web tool-web-results" data-testid="tool-web" aria-label={t("chat.web.resultsFor", { query: view.query })}>
        {view.results.map((r, i) => (
          <li key={`${r.index ?? "-"}-${i}`} data-testid="web-result">
            <span className="source-num">[{r.index ?? "–"}]</span>{" "}
            <PageLink url={r.url} className="source-title">
              {r.title}
            </PageLink>
            {r.domain && <span className="source-domain"> — {r.domain}</span>}
          </li>
        ))}
      </ol>
    );
  }
  return (
    <div className="tool-web tool-web-page" data-testid="tool-web">
      {view.index !== undefined && <span className="source-num">[{view.index}]</span>}{" "}
      {view.title && <span className="source-title">{view.title}</span>}
      {view.title && " — "}
      <PageLink url={view.url} className="tool-web-url">
        {view.url}
      </PageLink>
    </div>
  );
}

/** A web tool's result in its card's body: the search's snippets, or the part of a page read. */
export function WebDetails({ view }: { view: WebView }) {
  const t = useT();
  if (view.kind === "search") {
    return (
      <div className="tool-web-details">
        <h4>{view.provider ? t("chat.web.searchResultsFrom", { provider: view.provider }) : t("chat.web.searchResults")}</h4>
        <ol className="tool-web-snippets">
          {view.results.map((r, i) => (
            <li key={`${r.index ?? "-"}-${i}`}>
              <span className="source-num">[{r.index ?? "–"}]</span>{" "}
              <PageLink url={r.url} className="source-title">
                {r.title}
              </PageLink>
              <div className="tool-web-url muted">{r.url}</div>
              {r.published && <div className="muted small">{t("chat.web.published", { date: r.published })}</div>}
              {r.snippet && <p className="tool-web-snippet">{r.snippet}</p>}
            </li>
          ))}
        </ol>
      </div>
    );
  }
  const part =
    view.characters !== undefined && view.end !== undefined
      ? t("chat.web.part", { from: view.offset ?? 0, to: view.end, total: view.characters })
      : undefined;
  return (
    <div className="tool-web-details">
      <h4>{t("chat.web.page")}</h4>
      <dl className="tool-web-page-info">
        {view.title && (
          <>
            <dt>{t("chat.web.title")}</dt>
            <dd>{view.title}</dd>
          </>
        )}
        <dt>{t("chat.web.url")}</dt>
        <dd>
          <PageLink url={view.url}>{view.url}</PageLink>
        </dd>
        {view.requestedUrl && (
          <>
            <dt>{t("chat.web.askedFor")}</dt>
            <dd>{view.requestedUrl}</dd>
          </>
        )}
        {view.contentType && (
          <>
            <dt>{t("chat.web.type")}</dt>
            <dd>{view.contentType}</dd>
          </>
        )}
        {part && (
          <>
            <dt>{t("chat.web.read")}</dt>
            <dd>{part}</dd>
          </>
        )}
      </dl>
    </div>
  );
}
