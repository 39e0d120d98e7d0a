// Sanitised Markdown: GFM (tables, task lists, strikethrough), raw HTML never rendered,
// links and images limited to safe protocols, code highlighted with a copy button; an answer's
// citations `[n]` of known sources link to its Sources list.
import { memo, useMemo, type ComponentProps } from "react";
import ReactMarkdown, { type Components, type Options } from "react-markdown";
import rehypeHighlight from "rehype-highlight";
import rehypeSanitize, { defaultSchema } from "rehype-sanitize";
import remarkGfm from "remark-gfm";
import { CITATION_CLASS, jumpToSource, rehypeCitations } from "../lib/citations";
import { type HastLike, hastText } from "../lib/markdownUtil";
import type { CitationTarget } from "../lib/webSources";
import { CopyButton } from "./CopyButton";

const schema = {
  ...defaultSchema,
  // Only `language-*` classes survive on code (the highlighter adds its own after).
  attributes: {
    ...defaultSchema.attributes,
    code: [["className", /^language-[\w+#-]+$/]],
  },
};

function language(node: HastLike | undefined): string {
  const code = node?.children?.find((c) => (c as { tagName?: string }).tagName === "code") as
    | { properties?: { className?: unknown } }
    | undefined;
  const classes = code?.properties?.className;
  const list = Array.isArray(classes) ? classes : [];
  const lang = list.find((c): c is string => typeof c === "string" && c.startsWith("language-"));
  return lang ? lang.slice("language-".length) : "";
}

function CodeBlock({ node, children, ...rest }: ComponentProps<"pre"> & { node?: unknown }) {
  const hast = node as HastLike | undefined;
  const text = hastText(hast);
  const lang = language(hast);
  return (
    <div className="code-block">
      <div className="code-head">
        <span className="code-lang">{lang || "text"}</span>
        <CopyButton text={text.replace(/\n$/, "")} label="Copy code" />
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

const components: Components = { pre: CodeBlock, a: Link, table: Table };

const plain: Options["rehypePlugins"] = [[rehypeSanitize, schema], [rehypeHighlight, { detect: false }]];

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
  // Citation links are added after sanitizing: they are this app's own (in-page anchors).
  const rehypePlugins = useMemo<Options["rehypePlugins"]>(
    () =>
      citations && citations.size > 0
        ? [[rehypeSanitize, schema], [rehypeCitations, { targets: citations }], [rehypeHighlight, { detect: false }]]
        : plain,
    [citations],
  );
  return (
    <div className={`markdown ${className ?? ""}`}>
      <ReactMarkdown
        remarkPlugins={[remarkGfm]}
        rehypePlugins={rehypePlugins}
        components={components}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
}

export const Markdown = memo(MarkdownImpl);
