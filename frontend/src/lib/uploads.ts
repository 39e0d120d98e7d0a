// Files uploaded with a message are named at its end so the agent knows where they are; the
// UI shows them as chips instead of text.

const OPEN = "<uploaded_files>";
const CLOSE = "</uploaded_files>";

export function withAttachments(text: string, virtualPaths: string[]): string {
  if (virtualPaths.length === 0) return text;
  const list = virtualPaths.map((p) => `- ${p}`).join("\n");
  return `${text}\n\n${OPEN}\n${list}\n${CLOSE}`;
}

export function splitAttachments(content: string): { text: string; files: string[] } {
  const start = content.lastIndexOf(OPEN);
  if (start < 0 || !content.trimEnd().endsWith(CLOSE)) return { text: content, files: [] };
  const inner = content.slice(start + OPEN.length, content.lastIndexOf(CLOSE));
  // Only list items are files; an indented line under one is a note the server added (the
  // document's Markdown version).
  const files = inner
    .split("\n")
    .filter((l) => /^\s*-\s*/.test(l))
    .map((l) => l.replace(/^\s*-\s*/, "").trim())
    .filter(Boolean);
  return { text: content.slice(0, start).trimEnd(), files };
}
