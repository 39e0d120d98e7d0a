// Sanitised Markdown: GFM (tables, task lists, strikethrough), raw HTML never rendered,
// links and images limited to safe protocols, code highlighted with a copy button; an answer's
// citations `[n]` of known sources link to its Sources list; `$…$`/`$$…$$` math drawn by KaTeX
// and ```mermaid blocks drawn as diagrams once their closing fence has arrived.
// Plugin order: everything from the Markdown is sanitised first; KaTeX's output comes after
// (it is built by KaTeX from the formula's text, with `trust: false`), then highlighting.
import { memo, useMemo, type ComponentProps } from "react";
import ReactMarkdown, { type Components, type Options } from "react-markdown";
import rehypeHighlight from "rehype-highlight";
import rehypeKatex from "rehype-katex";
import rehypeSanitize, { defaultSchema } from "rehype-sanitize";
import remarkGfm from "remark-gfm";
import remarkMath from "remark-math";
import { useT } from "../i18n";
import { CITATION_CLASS, jumpToSource, rehypeCitations } from "../lib/citations";
import { type HastLike, hastText } from "../lib/markdownUtil";
import { KATEX_OPTIONS, normalizeMathDelimiters, remarkCurrencyGuard } from "../lib/math";
import { OPEN_FENCE_CLASS, remarkOpenFence } from "../lib/openFence";
import type { CitationTarget } from "../lib/webSources";
import { CopyButton } from "./CopyButton";
import { ExternalImage } from "./ExternalImage";
import { MermaidDiagram } from "./Mermaid";

const schema = {
  ...defaultSchema,
  // Only `language-*` classes survive on code (the highlighter adds its own after), plus the
  // math markers KaTeX looks for and the open-fence marker (none can come from the text: raw
  // HTML is never parsed, and a fence's info string only yields `language-*`).
  attributes: {
    ...defaultSchema.attributes,
    code: [["className", /^language-[\w+#-]+$/, "math-inline", "math-display", OPEN_FENCE_CLASS]],
  },
};

const remarkPlugins: Options["remarkPlugins"] = [
  remarkGfm,
  remarkMath,
  remarkCurrencyGuard,
  remarkOpenFence,
];

function language(node: HastLike | undefined): string {
  const code = node?.children?.find((c) => (c as { tagName?: string }).tagName === "code") as
    | { properties?: { className?: unknown } }
    | undefined;
  const classes = code?.properties?.className;
  const list = Array.isArray(classes) ? classes : [];
  const lang = list.find((c): c is string => typeof c === "string" && c.startsWith("language-"));
  return lang ? lang.slice("language-".length) : "";
}

function isOpen(node: HastLike | undefined): boolean {
  const code = node?.children?.find((c) => (c as { tagName?: string }).tagName === "code") as
    | { properties?: { className?: unknown } }
    | undefined;
  const classes = code?.properties?.className;
  return Array.isArray(classes) && classes.includes(OPEN_FENCE_CLASS);
}

function CodeBlock({ node, children, ...rest }: ComponentProps<"pre"> & { node?: unknown }) {
  const t = useT();
  const hast = node as HastLike | undefined;
  const text = hastText(hast);
  const lang = language(hast);
  // An unfinished diagram (still streaming) shows as code: no error flashes while it grows.
  if (lang === "mermaid" && !isOpen(hast)) return <MermaidDiagram source={text.replace(/\n$/, "")} />;
  return (
    <div className="code-block">
      <div className="code-head">
        <span className="code-lang">{lang || t("markdown.plainText")}</span>
        <CopyButton text={text.replace(/\n$/, "")} label={t("markdown.copyCode")} />
      </div>
      <pre {...rest}>{children}</pre>
    </div>
  );
}

function Link({ node: _node, href, children, ...rest }: ComponentProps<"a"> & { node?: unknown }) {
  if (rest.className === CITATION_CLASS && href?.startsWith("#")) {
    return (
      <a href={href} {...rest} onClick={jumpToSource}>
        {children}
      </a>
    );
  }
  const external = !!href && /^https?:/i.test(href);
  return (
    <a
      href={href}
      {...rest}
      {...(external ? { target: "_blank", rel: "noopener noreferrer" } : {})}
    >
      {children}
    </a>
  );
}

function Table({ node: _node, ...rest }: ComponentProps<"table"> & { node?: unknown }) {
  return (
    <div className="table-wrap">
      <table {...rest} />
    </div>
  );
}

const components: Components = { pre: CodeBlock, a: Link, table: Table, img: ExternalImage };

const plain: Options["rehypePlugins"] = [
  [rehypeSanitize, schema],
  [rehypeKatex, KATEX_OPTIONS],
  [rehypeHighlight, { detect: false }],
];

function MarkdownImpl({
  text,
  className,
  citations,
}: {
  text: string;
  className?: string;
  /** Sources an answer may cite as `[n]`, by number: those citations become links. */
  citations?: ReadonlyMap<number, CitationTarget> | undefined;
}) {
  const source = useMemo(() => normalizeMathDelimiters(text), [text]);
  // Citation links are added after sanitizing: they are this app's own (in-page anchors).
  const rehypePlugins = useMemo<Options["rehypePlugins"]>(
    () =>
      citations && citations.size > 0
        ? [
            [rehypeSanitize, schema],
            [rehypeCitations, { targets: citations }],
            [rehypeKatex, KATEX_OPTIONS],
            [rehypeHighlight, { detect: false }],
          ]
        : plain,
    [citations],
  );
  return (
    <div className={`markdown ${className ?? ""}`}>
      <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} components={components}>
        {source}
      </ReactMarkdown>
    </div>
  );
}

export const Markdown = memo(MarkdownImpl);
