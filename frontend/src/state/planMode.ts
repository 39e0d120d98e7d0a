// Plan mode, as picked in the composer and remembered in the browser: while it is on, every
// run this page starts asks for it (`context.plan_mode`), so the agent is offered
// `write_todos` and keeps a checklist the chat shows.
import { readSetting, writeSetting } from "../lib/storage";
import { Store } from "./store";

const KEY = "antler-plan-mode";

export const planModeStore = new Store<boolean>(readSetting(KEY) === "on");

/** Turns plan mode on or off for the next runs (and remembers it). */
export function setPlanMode(on: boolean): void {
  writeSetting(KEY, on ? "on" : null);
  planModeStore.set(on);
}

/** A run's `context`: `base` (what the run sends anyway, if anything) with plan mode added
 * when it is on; none when there is nothing to send. */
export function runContext(base?: Record<string, unknown>): Record<string, unknown> | undefined {
  const context = planModeStore.get() ? { ...base, plan_mode: true } : base;
  return context && Object.keys(context).length > 0 ? context : undefined;
}
