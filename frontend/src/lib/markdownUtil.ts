/** A fenced code block that survives any backticks inside `code`. */
export function codeFence(code: string, language = ""): string {
  const longest = Math.max(2, ...Array.from(code.matchAll(/`+/g), (m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  return `${fence}${language}\n${code.replace(/\n$/, "")}\n${fence}`;
}

/** The text inside a hast node (code blocks' copy buttons). */
export interface HastLike {
  type: string;
  value?: string;
  children?: HastLike[];
}

export function hastText(node: HastLike | undefined): string {
  if (!node) return "";
  if (node.type === "text") return node.value ?? "";
  return (node.children ?? []).map(hastText).join("");
}
