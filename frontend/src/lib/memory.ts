// Remembered facts as people read them: the categories the server knows, and the short
// labels of a fact's confidence, confirmations and dates.
import type { Fact, FactCategory } from "../api/types";
import { formatDate, formatRelative } from "./format";

export type { FactCategory };

/** What each category is called in the pickers: one entry per category of the OpenAPI
 * document (the compiler refuses a missing or an unknown one). */
export const CATEGORY_LABELS: Record<FactCategory, string> = {
  preference: "Preference",
  knowledge: "Knowledge",
  context: "Context",
  behavior: "Behavior",
  goal: "Goal",
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
  const parts = [{ text: `${confidenceLabel(fact.confidence)} sure`, title: "How sure the agent is" }];
  if (fact.confirmations > 0) {
    parts.push({ text: `confirmed ${fact.confirmations}×`, title: "How often it was found again" });
  }
  parts.push({ text: `learned ${formatRelative(fact.created_at, now)}`, title: formatDate(fact.created_at) });
  if (fact.last_used_at) {
    parts.push({ text: `last used ${formatRelative(fact.last_used_at, now)}`, title: formatDate(fact.last_used_at) });
  }
  return parts;
}
