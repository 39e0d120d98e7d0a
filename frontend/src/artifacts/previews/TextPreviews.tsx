// Previews of text files: Markdown, code, plain text, JSON, CSV and HTML.
import { type ReactNode, useMemo, useState } from "react";
import { Markdown } from "../../components/Markdown";
import { ErrorState, Spinner } from "../../components/States";
import { useT } from "../../i18n";
import { detectDelimiter, parseCsv } from "../../lib/csv";
import { languageFor } from "../../lib/fileKind";
import { splitFrontmatter } from "../../lib/frontmatter";
import { codeFence } from "../../lib/markdownUtil";
import { useText } from "../useArtifacts";
import { JsonTree } from "./JsonTree";

interface TextProps {
  url: string;
  path: string;
}

function WithText({ url, children }: { url: string; children: (text: string) => ReactNode }) {
  const { text, error, loading } = useText(url);
  const t = useT();
  if (loading) return <Spinner label={t("artifacts.text.loading")} />;
  if (error !== null) return <ErrorState message={t("artifacts.text.cannotLoad", { error })} />;
  return <>{children(text ?? "")}</>;
}

/** Markdown rendered; a frontmatter block (SKILL.md) is shown as YAML above it. */
export function MarkdownDoc({ text }: { text: string }) {
  const { frontmatter, body } = splitFrontmatter(text);
  return (
    <div className="markdown-doc">
      {frontmatter !== null && <Markdown className="frontmatter" text={codeFence(frontmatter, "yaml")} />}
      <Markdown text={body} />
    </div>
  );
}

export function MarkdownPreview({ url }: TextProps) {
  return <WithText url={url}>{(text) => <MarkdownDoc text={text} />}</WithText>;
}

export function CodePreview({ url, path }: TextProps) {
  return <WithText url={url}>{(text) => <Markdown text={codeFence(text, languageFor(path))} />}</WithText>;
}

export function PlainTextPreview({ url }: TextProps) {
  return <WithText url={url}>{(text) => <pre className="plain-text">{text}</pre>}</WithText>;
}

function JsonView({ text }: { text: string }) {
  const [mode, setMode] = useState<"tree" | "raw">("tree");
  const t = useT();
  const parsed = useMemo(() => {
    try {
      return { ok: true as const, value: JSON.parse(text) as unknown };
    } catch (e) {
      return { ok: false as const, error: e instanceof Error ? e.message : null };
    }
  }, [text]);
  if (!parsed.ok) {
    return (
      <>
        <p className="muted">
          {t("artifacts.text.invalidJson", { error: parsed.error ?? t("artifacts.text.invalidJsonReason") })}
        </p>
        <pre className="plain-text">{text}</pre>
      </>
    );
  }
  return (
    <div>
      <div className="segmented" role="group" aria-label={t("artifacts.text.jsonView")}>
        <button type="button" aria-pressed={mode === "tree"} onClick={() => setMode("tree")}>
          {t("artifacts.text.tree")}
        </button>
        <button type="button" aria-pressed={mode === "raw"} onClick={() => setMode("raw")}>
          {t("artifacts.text.pretty")}
        </button>
      </div>
      {mode === "tree" ? (
        <JsonTree value={parsed.value} />
      ) : (
        <Markdown text={codeFence(JSON.stringify(parsed.value, null, 2), "json")} />
      )}
    </div>
  );
}

export function JsonPreview({ url }: TextProps) {
  return <WithText url={url}>{(text) => <JsonView text={text} />}</WithText>;
}

const MAX_ROWS = 500;

function CsvTable({ text, path }: { text: string; path: string }) {
  const { rows, truncated } = useMemo(() => parseCsv(text, detectDelimiter(text, path), MAX_ROWS + 1), [text, path]);
  const t = useT();
  if (rows.length === 0) return <p className="muted">{t("artifacts.text.empty")}</p>;
  const [header = [], ...body] = rows;
  return (
    <div>
      <div className="table-wrap csv-table">
        <table>
          <thead>
            <tr>
              {header.map((h, i) => (
                <th key={i} scope="col">
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {body.map((row, r) => (
              <tr key={r}>
                {row.map((cell, c) => (
                  <td key={c}>{cell}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="muted small">
        {truncated
          ? t("artifacts.text.firstRows", { count: MAX_ROWS })
          : t("artifacts.text.size", {
              rows: t("artifacts.text.rows", { count: body.length }),
              columns: t("artifacts.text.columns", { count: header.length }),
            })}
      </p>
    </div>
  );
}

export function CsvPreview({ url, path }: TextProps) {
  return <WithText url={url}>{(text) => <CsvTable text={text} path={path} />}</WithText>;
}

/** HTML in a sandboxed frame: scripts may run, but in an opaque origin (no same-origin). */
export function HtmlPreview({ url, path }: TextProps) {
  const t = useT();
  return (
    <WithText url={url}>
      {(text) => (
        <iframe className="html-frame" title={t("artifacts.text.htmlTitle", { path })} sandbox="allow-scripts" srcDoc={text} referrerPolicy="no-referrer" />
      )}
    </WithText>
  );
}
