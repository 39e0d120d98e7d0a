// What kind of preview a file gets, from its name and content type.

export type PreviewKind =
  | "markdown"
  | "html"
  | "image"
  | "pdf"
  | "office"
  | "csv"
  | "json"
  | "code"
  | "text"
  | "skill"
  | "binary";

export function basename(path: string): string {
  const trimmed = path.replace(/\/+$/, "");
  return trimmed.slice(trimmed.lastIndexOf("/") + 1);
}

export function extension(path: string): string {
  const name = basename(path);
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : "";
}

const LANGUAGES: Record<string, string> = {
  py: "python",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  jsx: "javascript",
  ts: "typescript",
  tsx: "typescript",
  rs: "rust",
  go: "go",
  java: "java",
  kt: "kotlin",
  c: "c",
  h: "c",
  cpp: "cpp",
  cc: "cpp",
  hpp: "cpp",
  cs: "csharp",
  rb: "ruby",
  php: "php",
  swift: "swift",
  sh: "bash",
  bash: "bash",
  zsh: "bash",
  sql: "sql",
  yaml: "yaml",
  yml: "yaml",
  toml: "ini",
  ini: "ini",
  cfg: "ini",
  json: "json",
  xml: "xml",
  html: "xml",
  htm: "xml",
  svg: "xml",
  css: "css",
  scss: "scss",
  md: "markdown",
  markdown: "markdown",
  diff: "diff",
  patch: "diff",
  makefile: "makefile",
  dockerfile: "dockerfile",
  lua: "lua",
  r: "r",
  pl: "perl",
};

/** highlight.js language for a path ("" when none fits). */
export function languageFor(path: string): string {
  const name = basename(path).toLowerCase();
  if (name === "makefile") return "makefile";
  if (name === "dockerfile") return "dockerfile";
  if (name === "skill.md") return "markdown";
  return LANGUAGES[extension(path)] ?? "";
}

const TEXT_EXTENSIONS = new Set(["txt", "log", "text", "out", "env", "gitignore", "lock"]);
const IMAGE_EXTENSIONS = new Set(["png", "jpg", "jpeg", "gif", "webp", "svg", "bmp", "ico", "avif"]);

/** Word, Excel, PowerPoint and OpenDocument files: previewed as PDF rendered by the server. */
const OFFICE_EXTENSIONS = new Set(["docx", "doc", "odt", "rtf", "xlsx", "xls", "ods", "pptx", "ppt", "odp"]);

export function previewKind(path: string, contentType = ""): PreviewKind {
  const ext = extension(path);
  const type = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  if (ext === "skill") return "skill";
  if (ext === "md" || ext === "markdown" || type === "text/markdown") return "markdown";
  if (ext === "html" || ext === "htm" || type === "text/html") return "html";
  if (IMAGE_EXTENSIONS.has(ext) || type.startsWith("image/")) return "image";
  if (ext === "pdf" || type === "application/pdf") return "pdf";
  if (OFFICE_EXTENSIONS.has(ext)) return "office";
  if (ext === "csv" || ext === "tsv" || type === "text/csv") return "csv";
  if (ext === "json" || type === "application/json") return "json";
  if (languageFor(path)) return "code";
  if (TEXT_EXTENSIONS.has(ext) || type.startsWith("text/") || !ext) return "text";
  return "binary";
}
