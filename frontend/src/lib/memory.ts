// Remembered facts as people read them: the categories the server knows, and the short
// labels of a fact's confidence, confirmations and dates.
import type { Fact, FactCategory } from "../api/types";
import { t } from "../i18n";
import { formatDate, formatRelative } from "./format";

export type { FactCategory };

/** What each category is called in the pickers: one entry per category of the OpenAPI
 * document (the compiler refuses a missing or an unknown one). */
export const CATEGORY_LABELS: Readonly<Record<FactCategory, string>> = {
  // Getters: read in the language in use when shown.
  get preference() {
    return t("lib.memory.categories.preference");
  },
  get knowledge() {
    return t("lib.memory.categories.knowledge");
  },
  get context() {
    return t("lib.memory.categories.context");
  },
  get behavior() {
    return t("lib.memory.categories.behavior");
  },
  get goal() {
    return t("lib.memory.categories.goal");
  },
};

/** The categories the server accepts, in the order the pickers list them. */
export const FACT_CATEGORIES = Object.keys(CATEGORY_LABELS) as FactCategory[];

/** The server's default for a new fact. */
export const DEFAULT_CATEGORY: FactCategory = "context";

/** A category's label (an unknown one, from a newer server, as it is). */
export function categoryLabel(category: string): string {
  return CATEGORY_LABELS[category as FactCategory] ?? category;
}

/** "90%": how sure the agent is (0–1 on the wire). */
export function confidenceLabel(confidence: number): string {
  return `${Math.round(Math.min(1, Math.max(0, confidence)) * 100)}%`;
}

/** A fact's details line: confidence, confirmations, when it was learned and last used. */
export function factDetails(fact: Fact, now: Date = new Date()): { text: string; title: string }[] {
  const parts = [
    { text: t("lib.memory.sure", { percent: confidenceLabel(fact.confidence) }), title: t("lib.memory.sureTitle") },
  ];
  if (fact.confirmations > 0) {
    parts.push({ text: t("lib.memory.confirmed", { n: fact.confirmations }), title: t("lib.memory.confirmedTitle") });
  }
  parts.push({ text: t("lib.memory.learned", { when: formatRelative(fact.created_at, now) }), title: formatDate(fact.created_at) });
  if (fact.last_used_at) {
    parts.push({
      text: t("lib.memory.lastUsed", { when: formatRelative(fact.last_used_at, now) }),
      title: formatDate(fact.last_used_at),
    });
  }
  return parts;
}
