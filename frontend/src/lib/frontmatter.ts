// SKILL.md: YAML frontmatter between `---` lines, then the markdown body.

export interface SplitDoc {
  frontmatter: string | null;
  body: string;
}

export function splitFrontmatter(text: string): SplitDoc {
  const input = text.replace(/^\uFEFF/, "");
  const m = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(input);
  if (!m) return { frontmatter: null, body: input };
  return { frontmatter: m[1] ?? "", body: input.slice(m[0].length) };
}
