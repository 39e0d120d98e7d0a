// A run's timeline: one row per step in the order they started (model calls with their tokens,
// finish reason and time to first token; tool calls; subagents with their own steps nested),
// each with a bar placed and sized by when it started and how long it took within the run.
// Failed steps are red and say why.
import type { TFunction } from "i18next";
import { Link } from "react-router-dom";
import { useT } from "../i18n";
import { formatTokens } from "../lib/usage";
import { runPath } from "./RunTable";
import { stepDuration, stepStatusClass, stepStatusLabel } from "./runView";
import { axisOf, layoutTimeline, type Axis, type TimelineRow } from "./timelineLayout";
import type { ConsoleRunDetail, RunStep } from "./types";

/** What a step did, beyond its name: tokens and timings of a model call. */
function facts(step: RunStep, t: TFunction): string[] {
  const out: string[] = [];
  if (step.kind === "model_call") {
    if (step.input_tokens != null || step.output_tokens != null) {
      out.push(
        t("console.tokensInOut", { input: formatTokens(step.input_tokens ?? 0), output: formatTokens(step.output_tokens ?? 0) }),
      );
    }
    if (step.finish_reason) {
      const reason = t(`console.steps.finishReason.${step.finish_reason}`, { defaultValue: step.finish_reason });
      out.push(t("console.steps.finish", { reason }));
    }
    if (step.first_token_ms != null) out.push(t("console.steps.firstToken", { time: stepDuration(step.first_token_ms) }));
  }
  out.push(stepDuration(step.duration_ms));
  return out;
}

function StepRow({ row }: { row: TimelineRow }) {
  const { step, bar } = row;
  const t = useT();
  const failed = step.status === "error";
  return (
    <li
      className={failed ? "timeline-row timeline-row-error" : "timeline-row"}
      data-testid="step-row"
      data-kind={step.kind}
      data-status={step.status}
      data-depth={row.depth}
    >
      <div className="timeline-step" style={{ paddingLeft: `${row.depth * 18}px` }}>
        <div className="timeline-label">
          <span className={`timeline-kind timeline-kind-${step.kind}`}>{t(`console.steps.kinds.${step.kind}`)}</span>
          <span className="timeline-name" data-testid="step-name">
            {step.name}
          </span>
          {step.status !== "ok" && <span className={stepStatusClass(step.status)}>{stepStatusLabel(step.status)}</span>}
          {step.child_run_id && (
            <Link to={runPath(step.child_run_id)} className="timeline-child-link">
              {t("console.steps.runLink")}
            </Link>
          )}
        </div>
        <div className="timeline-facts muted" data-testid="step-facts">
          {facts(step, t).join(" · ")}
        </div>
        {step.error && (
          <div className="timeline-error" data-testid="step-error">
            {step.error}
          </div>
        )}
      </div>
      <div className="timeline-track" aria-hidden="true">
        <div
          className={`timeline-bar timeline-bar-${step.kind} timeline-bar-${step.status}`}
          data-testid="step-bar"
          style={{ left: `${bar.left}%`, width: `${bar.width}%` }}
        />
      </div>
      {row.rows.length > 0 && <Rows rows={row.rows} label={t("console.steps.ofSubagent", { name: step.name })} />}
    </li>
  );
}

function Rows({ rows, label }: { rows: TimelineRow[]; label: string }) {
  return (
    <ol className="timeline-rows" aria-label={label}>
      {rows.map((row, i) => (
        <StepRow key={`${row.step.tool_call_id ?? row.step.child_run_id ?? ""}-${i}`} row={row} />
      ))}
    </ol>
  );
}

/** The axis' scale: the run's start, middle and end. */
function Scale({ axis }: { axis: Axis }) {
  const t = useT();
  return (
    <div className="timeline-scale muted" aria-hidden="true">
      <span>{t("console.zeroSeconds")}</span>
      <span>{stepDuration(axis.span / 2)}</span>
      <span>{stepDuration(axis.span)}</span>
    </div>
  );
}

export function RunTimeline({ detail }: { detail: ConsoleRunDetail }) {
  const axis = axisOf(detail);
  const rows = layoutTimeline(detail, axis);
  const t = useT();
  if (rows.length === 0) {
    return (
      <p className="muted" data-testid="timeline-empty">
        {t("console.steps.empty")}
      </p>
    );
  }
  return (
    <section className="timeline" aria-label={t("console.timeline")}>
      <div className="timeline-head">
        <span>{t("console.steps.step")}</span>
        <Scale axis={axis} />
      </div>
      <Rows rows={rows} label={t("console.steps.label")} />
    </section>
  );
}
