// The one i18n layer: every UI string comes from the catalogues `en.json` and `zh-CN.json`
// (i18next), looked up by key with `useT()` in components or `t()` elsewhere. The language
// follows the browser unless chosen in Settings; dates and numbers are formatted for it.
import i18next from "i18next";
import { initReactI18next, useTranslation } from "react-i18next";
import { readSetting, writeSetting } from "../lib/storage";
import en from "./en.json";
import zhCN from "./zh-CN.json";

/** The languages with a complete catalogue. */
export const LANGUAGES = ["en", "zh-CN"] as const;
/** One of [`LANGUAGES`]. */
export type Language = (typeof LANGUAGES)[number];
/** What Settings stores: a language, or "auto" to follow the browser. */
export type LanguageChoice = Language | "auto";

const SETTING = "antler.language";

/** The catalogue language closest to the browser's preferences (English when none fits). */
export function detectLanguage(preferred: readonly string[] = browserLanguages()): Language {
  for (const tag of preferred) {
    const lower = tag.toLowerCase();
    // Chinese in Simplified script (zh, zh-CN, zh-SG, zh-Hans…); Traditional falls to English.
    if (lower === "zh" || lower.startsWith("zh-cn") || lower.startsWith("zh-sg") || lower.startsWith("zh-hans")) {
      return "zh-CN";
    }
    if (lower.startsWith("zh")) continue;
    if (lower.startsWith("en")) return "en";
  }
  return "en";
}

function browserLanguages(): readonly string[] {
  if (typeof navigator === "undefined") return [];
  return navigator.languages?.length ? navigator.languages : [navigator.language ?? "en"];
}

/** The choice saved in Settings ("auto" when none). */
export function languageChoice(): LanguageChoice {
  const saved = readSetting(SETTING);
  return saved && (LANGUAGES as readonly string[]).includes(saved) ? (saved as Language) : "auto";
}

function resolve(choice: LanguageChoice): Language {
  return choice === "auto" ? detectLanguage() : choice;
}

function applyToDocument(lang: Language): void {
  if (typeof document !== "undefined") document.documentElement.lang = lang;
}

void i18next.use(initReactI18next).init({
  resources: { en: { translation: en }, "zh-CN": { translation: zhCN } },
  lng: resolve(languageChoice()),
  fallbackLng: "en",
  supportedLngs: [...LANGUAGES],
  // React escapes what it renders; the catalogues hold plain text.
  interpolation: { escapeValue: false },
  returnNull: false,
  initAsync: false,
});
applyToDocument(i18next.language as Language);

/** Saves the choice and switches every mounted component to it. */
export function setLanguageChoice(choice: LanguageChoice): void {
  writeSetting(SETTING, choice === "auto" ? null : choice);
  const lang = resolve(choice);
  void i18next.changeLanguage(lang);
  applyToDocument(lang);
}

/** The language in use. */
export function currentLanguage(): Language {
  return (LANGUAGES as readonly string[]).includes(i18next.language)
    ? (i18next.language as Language)
    : "en";
}

/** Translation outside components (it does not re-render on a language change by itself). */
export const t = i18next.t.bind(i18next);

/** Translation in components: re-renders when the language changes. */
export function useT() {
  return useTranslation().t;
}

/** A number for the current language (digits grouped, at most `digits` decimals). */
export function formatNumber(n: number, digits = 0): string {
  return new Intl.NumberFormat(currentLanguage(), { maximumFractionDigits: digits }).format(n);
}

export { i18next };
