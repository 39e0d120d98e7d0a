// Mermaid diagrams, drawn safely. The library (a few MB) is loaded on first use as its own
// chunks. It runs at its strict security level with HTML labels off, and a diagram's
// `%%{init}%%` directive cannot change those (nor the theme). The SVG it draws is then shown
// as an image from a `data:` URL: a browser never runs script, loads resources or follows
// links in an SVG drawn as an `<img>`, so whatever Mermaid's own sanitizing might miss stays
// inert. (The price: no text selection in the diagram and no clickable nodes, which the
// strict level disables anyway.)
import type { MermaidConfig } from "mermaid";
import { t } from "../i18n";

/** The app's resolved colour scheme. */
export type Scheme = "light" | "dark";

/** A drawn diagram: an image URL and its natural size in CSS pixels. */
export interface Diagram {
  url: string;
  width: number;
  height: number;
}

type MermaidApi = (typeof import("mermaid"))["default"];

let library: Promise<MermaidApi> | undefined;

function load(): Promise<MermaidApi> {
  library ??= import("mermaid").then(
    (m) => m.default,
    (err: unknown) => {
      // A failed chunk load (e.g. after a deploy) is tried again next time.
      library = undefined;
      throw err;
    },
  );
  return library;
}

/** Keys a diagram's directive may not set (Mermaid's defaults plus HTML labels and theming). */
const SECURE_KEYS = [
  "secure",
  "securityLevel",
  "startOnLoad",
  "maxTextSize",
  "maxEdges",
  "suppressErrorRendering",
  "htmlLabels",
  "dompurifyConfig",
  "theme",
  "themeCSS",
  "themeVariables",
  "darkMode",
  "arrowMarkerAbsolute",
];

function config(scheme: Scheme): MermaidConfig {
  return {
    startOnLoad: false,
    securityLevel: "strict",
    htmlLabels: false,
    flowchart: { htmlLabels: false },
    secure: SECURE_KEYS,
    suppressErrorRendering: true,
    maxTextSize: 50_000,
    maxEdges: 500,
    theme: scheme === "dark" ? "dark" : "default",
    darkMode: scheme === "dark",
    logLevel: "fatal",
  };
}

function dimension(value: string | null): number | undefined {
  const n = value === null ? Number.NaN : Number.parseFloat(value);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

/** The SVG Mermaid drew as a self-contained image: an explicit size (Mermaid's `width="100%"`
 * means nothing inside an `<img>`) taken from its view box. */
export function svgImage(svg: string): Diagram {
  const doc = new DOMParser().parseFromString(svg, "image/svg+xml");
  const root = doc.documentElement;
  if (root.nodeName !== "svg" || doc.getElementsByTagName("parsererror").length > 0) {
    throw new Error(t("markdown.mermaidInvalidSvg"));
  }
  const box = (root.getAttribute("viewBox") ?? "").trim().split(/[\s,]+/);
  const width = Math.ceil(dimension(box[2] ?? null) ?? dimension(root.getAttribute("width")) ?? 300);
  const height = Math.ceil(dimension(box[3] ?? null) ?? dimension(root.getAttribute("height")) ?? 150);
  root.setAttribute("width", String(width));
  root.setAttribute("height", String(height));
  const style = (root.getAttribute("style") ?? "").replace(/max-width:[^;]*;?/g, "").trim();
  if (style) root.setAttribute("style", style);
  else root.removeAttribute("style");
  if (!root.getAttribute("xmlns")) root.setAttribute("xmlns", "http://www.w3.org/2000/svg");
  const xml = new XMLSerializer().serializeToString(root);
  return { url: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(xml)}`, width, height };
}

/** Diagram syntax that makes Mermaid fetch a URL while it draws (in the page, before the SVG
 * becomes an inert image): image shapes (`A@{ img: "https://…" }`), CSS `url(…)` and
 * `@import` in styles. Such a diagram is not drawn: a model steered by a web page could
 * otherwise send the conversation to another site with no click. */
const FETCHES = /@\{[^}]*\b(?:img|image)\s*:|\burl\s*\(|@import/i;

/** Why `source` is not drawn, or null when it may be. */
export function refusal(source: string): string | null {
  return FETCHES.test(source) ? t("markdown.mermaidExternal") : null;
}

/** A diagram that takes longer than this is abandoned (the queue moves on). */
const DRAW_TIMEOUT_MS = 10_000;

function withTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(t("markdown.mermaidTimeout"))), DRAW_TIMEOUT_MS);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

let sequence = 0;
// Mermaid's configuration is global: one diagram at a time, each with its own settings.
let queue: Promise<unknown> = Promise.resolve();
const drawn = new Map<string, Diagram>();
const CACHE_SIZE = 64;

/** A diagram already drawn for this source and scheme (remounts show it at once). */
export function cachedDiagram(source: string, scheme: Scheme): Diagram | undefined {
  return drawn.get(`${scheme}\n${source}`);
}

/** Draws `source` (Mermaid's syntax errors reject with the parser's message). */
export function drawDiagram(source: string, scheme: Scheme): Promise<Diagram> {
  const key = `${scheme}\n${source}`;
  const hit = drawn.get(key);
  if (hit) return Promise.resolve(hit);
  const refused = refusal(source);
  if (refused) return Promise.reject(new Error(refused));
  const job = queue.then(async () => {
    // The same diagram may have been queued twice (a remount while the first was drawing).
    const done = drawn.get(key);
    if (done) return done;
    const mermaid = await load();
    mermaid.initialize(config(scheme));
    sequence += 1;
    const { svg } = await withTimeout(mermaid.render(`antler-mermaid-${sequence}`, source));
    const diagram = svgImage(svg);
    if (drawn.size >= CACHE_SIZE) {
      const oldest = drawn.keys().next().value;
      if (oldest !== undefined) drawn.delete(oldest);
    }
    drawn.set(key, diagram);
    return diagram;
  });
  queue = job.catch(() => undefined);
  return job;
}
