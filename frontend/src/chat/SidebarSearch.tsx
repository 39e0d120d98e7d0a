// Searching one's conversations from the sidebar: a debounced box over the server's full-text
// search; while it holds a query the results (title and snippet with the matches marked)
// replace the normal list, and clearing it brings the list back. The marks come as data
// (`{text, match}` pieces) and are rendered as <mark> elements, never as HTML.
import { type KeyboardEvent, type ReactNode, useEffect, useRef, useState } from "react";
import { NavLink } from "react-router-dom";
import { api } from "../api/client";
import { errorMessage } from "../api/http";
import type { components } from "../api/schema";
import { Icon } from "../components/Icon";
import { Spinner } from "../components/States";
import { useT } from "../i18n";
import { formatRelative } from "../lib/format";

type TextPart = components["schemas"]["TextPart"];
type Hit = components["schemas"]["ThreadSearchHit"];

/** The longest query the server takes (its schema's `maxLength`). */
export const MAX_QUERY = 200;
/** How long typing pauses before a search is sent. */
export const DEBOUNCE_MS = 250;
const PAGE = 30;

interface Result {
  threadId: string;
  updatedAt: string;
  hit: Hit;
  fallbackTitle: string;
}

/** Text pieces with the matched ones in <mark>. */
export function Marked({ parts }: { parts: TextPart[] }) {
  return (
    <>
      {parts.map((p, i) => (p.match ? <mark key={i}>{p.text}</mark> : <span key={i}>{p.text}</span>))}
    </>
  );
}

function titleOf(metadata: Record<string, unknown> | undefined): string {
  const title = metadata?.["title"];
  return typeof title === "string" ? title.trim() : "";
}

export function SidebarSearch({ children, onNavigate }: { children: ReactNode; onNavigate: () => void }) {
  const t = useT();
  const [query, setQuery] = useState("");
  const [results, setResults] = useState<Result[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [searching, setSearching] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const list = useRef<HTMLUListElement>(null);
  // Answers to older queries that arrive late are dropped.
  const latest = useRef(0);
  const trimmed = query.trim();

  useEffect(() => {
    if (!trimmed) {
      latest.current += 1;
      setResults(null);
      setError(null);
      setSearching(false);
      return;
    }
    const id = ++latest.current;
    setSearching(true);
    const timer = window.setTimeout(() => {
      api
        .searchThreads({ query: trimmed, limit: PAGE, select: ["thread_id", "updated_at", "metadata"] })
        .then((threads) => {
          if (id !== latest.current) return;
          setResults(
            threads.map((thread) => ({
              threadId: thread.thread_id,
              updatedAt: thread.updated_at,
              hit: thread.search ?? { title: [], snippet: [] },
              fallbackTitle: titleOf(thread.metadata),
            })),
          );
          setError(null);
        })
        .catch((e: unknown) => {
          if (id === latest.current) setError(errorMessage(e));
        })
        .finally(() => {
          if (id === latest.current) setSearching(false);
        });
    }, DEBOUNCE_MS);
    return () => window.clearTimeout(timer);
  }, [trimmed]);

  const links = () => Array.from(list.current?.querySelectorAll<HTMLAnchorElement>("a.search-result") ?? []);
  const clear = () => {
    setQuery("");
    input.current?.focus();
  };
  const onInputKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === "Escape" && query) {
      e.preventDefault();
      clear();
    } else if (e.key === "ArrowDown") {
      const first = links()[0];
      if (first) {
        e.preventDefault();
        first.focus();
      }
    } else if (e.key === "Enter" && !searching) {
      // Enter opens the best match (of this query: not while the results are an older one's).
      const first = links()[0];
      if (first) {
        e.preventDefault();
        first.click();
      }
    }
  };
  const onListKey = (e: KeyboardEvent<HTMLUListElement>) => {
    const all = links();
    const at = all.indexOf(document.activeElement as HTMLAnchorElement);
    if (at < 0) return;
    if (e.key === "ArrowDown" && at + 1 < all.length) {
      e.preventDefault();
      all[at + 1]?.focus();
    } else if (e.key === "ArrowUp") {
      e.preventDefault();
      if (at === 0) input.current?.focus();
      else all[at - 1]?.focus();
    } else if (e.key === "Escape") {
      e.preventDefault();
      clear();
    }
  };

  return (
    <>
      <div className="sidebar-search" role="search">
        <Icon name="search" size={14} />
        <input
          ref={input}
          type="search"
          value={query}
          maxLength={MAX_QUERY}
          placeholder={t("search.placeholder")}
          aria-label={t("search.label")}
          aria-controls={trimmed ? "sidebar-search-results" : undefined}
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={onInputKey}
          data-testid="sidebar-search"
        />
        {query && (
          <button type="button" className="btn btn-ghost btn-icon btn-xs" aria-label={t("search.clear")} onClick={clear}>
            <Icon name="x" size={12} />
          </button>
        )}
      </div>
      {!trimmed ? (
        children
      ) : (
        <nav className="thread-nav" aria-label={t("search.results")} id="sidebar-search-results">
          <div className="visually-hidden" aria-live="polite">
            {results && !searching ? t("search.count", { count: results.length }) : ""}
          </div>
          {searching && !results && <Spinner label={t("search.searching")} />}
          {error && (
            <p className="search-message error" role="alert">
              {t("search.failed", { error })}
            </p>
          )}
          {results && !error && results.length === 0 && !searching && (
            <p className="search-message">{t("search.none", { query: trimmed })}</p>
          )}
          {results && results.length > 0 && (
            <ul className="thread-list search-results" ref={list} onKeyDown={onListKey} data-testid="search-results">
              {results.map((r) => (
                <li key={r.threadId} className="thread-item search-item" data-thread-id={r.threadId}>
                  <NavLink
                    to={`/threads/${r.threadId}`}
                    className={({ isActive }) => `thread-link search-result ${isActive ? "active" : ""}`}
                    onClick={onNavigate}
                  >
                    <span className="thread-title">
                      {r.hit.title.length ? <Marked parts={r.hit.title} /> : r.fallbackTitle || t("search.untitled")}
                    </span>
                    {r.hit.snippet.length > 0 && (
                      <span className="search-snippet" data-testid="search-snippet">
                        <Marked parts={r.hit.snippet} />
                      </span>
                    )}
                    <span className="thread-meta">{formatRelative(r.updatedAt)}</span>
                  </NavLink>
                </li>
              ))}
            </ul>
          )}
        </nav>
      )}
    </>
  );
}
