// Where each step of a run sits on the run's time axis (a Gantt-like view): bars positioned
// and scaled in percent of the whole run, subagents' steps nested under their `task` step on
// the same axis, so that a subagent's work lines up with its parent's.
import type { ConsoleRun, ConsoleRunDetail, RunStep, RunStepStatus } from "./types";

/** The narrowest bar drawn, in percent, so that an instant step stays visible. */
export const MIN_WIDTH = 0.5;

/** The time axis: where it starts (epoch ms) and how long it is (ms, at least 1). */
export interface Axis {
  origin: number;
  span: number;
}

/** A bar, in percent of the axis. */
export interface Bar {
  left: number;
  width: number;
}

/** One row of the timeline: a step, its bar, and a subagent's own rows. */
export interface TimelineRow {
  step: RunStep;
  bar: Bar;
  /** 0 for the run's own steps, 1 for its subagents' steps, … */
  depth: number;
  /** A subagent step's run, when the server sent it. */
  child?: ConsoleRunDetail;
  /** The child run's steps. */
  rows: TimelineRow[];
}

const ms = (iso: string) => {
  const t = Date.parse(iso);
  return Number.isFinite(t) ? t : NaN;
};

const finished = (run: ConsoleRun) => run.status !== "pending" && run.status !== "running";

/** The earliest start and latest end of a run, its steps and its subagents'. */
function bounds(detail: ConsoleRunDetail): [number, number] {
  const { run } = detail;
  const created = ms(run.created_at);
  let start = created;
  let end = finished(run) && run.duration_ms != null ? created + run.duration_ms : ms(run.updated_at);
  for (const step of detail.timeline) {
    const s = ms(step.started_at);
    if (Number.isNaN(s)) continue;
    start = Math.min(start, s);
    end = Math.max(end, s + step.duration_ms);
  }
  for (const child of detail.subagents) {
    const [s, e] = bounds(child);
    start = Math.min(start, s);
    end = Math.max(end, e);
  }
  return [start, end];
}

/** The axis of a whole run (its subagents included). */
export function axisOf(detail: ConsoleRunDetail): Axis {
  const [start, end] = bounds(detail);
  const origin = Number.isFinite(start) ? start : 0;
  return { origin, span: Number.isFinite(end) ? Math.max(end - origin, 1) : 1 };
}

/** The bar of something that started at `startedAt` and took `durationMs`. */
export function barOf(startedAt: string, durationMs: number, axis: Axis): Bar {
  const start = ms(startedAt);
  const raw = Number.isNaN(start) ? 0 : ((start - axis.origin) / axis.span) * 100;
  const left = Math.min(Math.max(raw, 0), 100 - MIN_WIDTH);
  const width = Math.min(Math.max((durationMs / axis.span) * 100, MIN_WIDTH), 100 - left);
  return { left, width };
}

const STEP_STATUS: Record<ConsoleRun["status"], RunStepStatus> = {
  success: "ok",
  pending: "ok",
  running: "ok",
  error: "error",
  timeout: "error",
  interrupted: "cancelled",
};

/** A step for a subagent run that no step of its parent names (a timeline cut short). */
function stepOfChild(child: ConsoleRunDetail): RunStep {
  const { run } = child;
  return {
    kind: "subagent",
    name: "subagent",
    started_at: run.created_at,
    duration_ms: run.duration_ms ?? Math.max(ms(run.updated_at) - ms(run.created_at), 0),
    status: STEP_STATUS[run.status],
    error: run.error ?? null,
    child_run_id: run.run_id,
  };
}

/** The rows of a run's timeline on `axis`: its steps by start time, each subagent's own rows
 * under its step, and subagent runs no step names at the end. */
export function layoutTimeline(detail: ConsoleRunDetail, axis: Axis = axisOf(detail), depth = 0): TimelineRow[] {
  const named = new Set(detail.timeline.map((s) => s.child_run_id).filter(Boolean));
  const orphans = detail.subagents.filter((c) => !named.has(c.run.run_id)).map(stepOfChild);
  const steps = [...detail.timeline]
    .map((step, i) => ({ step, i, t: ms(step.started_at) }))
    .sort((a, b) => (a.t || 0) - (b.t || 0) || a.i - b.i)
    .map((s) => s.step)
    .concat(orphans);
  return steps.map((step) => {
    const child = step.child_run_id ? detail.subagents.find((c) => c.run.run_id === step.child_run_id) : undefined;
    return {
      step,
      bar: barOf(step.started_at, step.duration_ms, axis),
      depth,
      ...(child ? { child } : {}),
      rows: child ? layoutTimeline(child, axis, depth + 1) : [],
    };
  });
}
