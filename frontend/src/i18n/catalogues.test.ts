// The catalogues agree: the same keys in English and Chinese (plural forms as each language has
// them: English `_one` and `_other`, Chinese only `_other`), no empty texts, the same
// `{{variables}}` in both; and every key the code asks for with a literal exists.
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import en from "./en.json";
import zhCN from "./zh-CN.json";

type Tree = { [key: string]: string | Tree };

const PLURAL = /_(zero|one|two|few|many|other)$/;

/** Every text of a catalogue by its dotted key. */
function flatten(tree: Tree, prefix = "", out = new Map<string, string>()): Map<string, string> {
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === "string") out.set(path, value);
    else flatten(value, path, out);
  }
  return out;
}

const EN = flatten(en as Tree);
const ZH = flatten(zhCN as Tree);

/** The keys without their plural suffix, each with the plural forms it has. */
function bases(texts: Map<string, string>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const key of texts.keys()) {
    const form = PLURAL.exec(key)?.[1] ?? "";
    const base = form ? key.slice(0, -form.length - 1) : key;
    out.set(base, (out.get(base) ?? new Set()).add(form));
  }
  return out;
}

const variables = (text: string | undefined): string[] =>
  [...new Set([...(text ?? "").matchAll(/\{\{\s*([\w.]+)\s*\}\}/g)].map((m) => m[1] ?? ""))].sort();

describe("the catalogues", () => {
  const enBases = bases(EN);
  const zhBases = bases(ZH);

  it("have the same keys in English and Chinese", () => {
    const onlyEn = [...enBases.keys()].filter((k) => !zhBases.has(k));
    const onlyZh = [...zhBases.keys()].filter((k) => !enBases.has(k));
    expect({ onlyEn, onlyZh }).toEqual({ onlyEn: [], onlyZh: [] });
  });

  it("have the plural forms each language uses: English one and other, Chinese other only", () => {
    const wrong: string[] = [];
    for (const [base, forms] of enBases) {
      const zh = zhBases.get(base);
      const plural = forms.has("one") || forms.has("other") || !!zh?.has("other");
      if (!plural) continue;
      if (!(forms.has("one") && forms.has("other") && forms.size === 2)) wrong.push(`en ${base}: ${[...forms].join(",")}`);
      if (zh && !(zh.has("other") && zh.size === 1)) wrong.push(`zh-CN ${base}: ${[...zh].join(",")}`);
    }
    expect(wrong).toEqual([]);
  });

  it("have no empty texts", () => {
    const empty = [...EN, ...ZH].filter(([, text]) => !text.trim()).map(([key]) => key);
    expect(empty).toEqual([]);
  });

  it("use the same variables in both languages", () => {
    const differ: string[] = [];
    for (const [base, forms] of enBases) {
      const other = forms.has("other") ? `${base}_other` : base;
      const enVars = variables(EN.get(other));
      const zhVars = variables(ZH.get(zhBases.get(base)?.has("other") ? `${base}_other` : base));
      if (enVars.join() !== zhVars.join()) differ.push(`${base}: en {${enVars.join()}} zh-CN {${zhVars.join()}}`);
      // The singular may leave the number out ("a minute"), never bring a variable of its own.
      const extra = variables(EN.get(`${base}_one`)).filter((v) => !enVars.includes(v));
      if (extra.length) differ.push(`${base}_one: {${extra.join()}} not in _other`);
    }
    expect(differ).toEqual([]);
  });
});

const SRC = join(__dirname, "..");

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$|\.d\.ts$/.test(name) ? [path] : [];
  });
}

/** Whether `key` names a text (in any plural form) or, with `group`, a group of texts. */
function known(key: string, group = false): boolean {
  if (group) return [...EN.keys()].some((k) => k.startsWith(`${key}.`));
  return EN.has(key) || EN.has(`${key}_one`) || EN.has(`${key}_other`);
}

describe("the keys the code asks for", () => {
  it("are all in the catalogues", () => {
    const missing: string[] = [];
    // `t("a.b")`, `t('a.b', …)`, `` t(`a.b`) `` and `i18nKey="a.b"`; a key built at run time
    // (`` t(`lib.tools.${name}`) ``) must at least start with a group that exists.
    const call = /(?<![\w.])t\(\s*(["'`])([^"'`]*?)\1|i18nKey=\s*(["'])([^"']*)\3/g;
    let found = 0;
    for (const file of sources(SRC)) {
      // Comment lines may show examples of calls.
      const text = readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => !/^\s*(\/\/|\/?\*)/.test(line))
        .join("\n");
      for (const m of text.matchAll(call)) {
        const key = m[2] ?? m[4] ?? "";
        if (!/^[\w-]+(\.|$)/.test(key)) continue; // not a catalogue key ("", a sentence)
        found += 1;
        const where = `${relative(SRC, file)}: ${key}`;
        if (key.includes("${")) {
          const prefix = key.slice(0, key.indexOf("${"));
          const group = prefix.slice(0, prefix.lastIndexOf("."));
          if (group && !known(group, true)) missing.push(where);
        } else if (!known(key)) {
          missing.push(where);
        }
      }
    }
    expect(missing).toEqual([]);
    // The scan reads the calls (a pattern that matched nothing would pass on no evidence).
    expect(found).toBeGreaterThan(100);
  });
});
