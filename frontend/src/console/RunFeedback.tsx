// What people thought of a run's answer, in the runs console: thumbs in the list, each rating
// with its comment in the run's detail, and the download of everyone's feedback.
import { Thumb } from "../chat/FeedbackButtons";
import { useT } from "../i18n";
import { formatDate } from "../lib/format";
import { type RunFilters, queryOfFilters } from "./filters";
import { userLabel } from "./runView";
import type { ConsoleRun } from "./types";

type Feedback = NonNullable<ConsoleRun["feedback"]>[number];

/** The list's cell: a thumb per rating given (down first: those need a look). */
export function FeedbackCell({ run }: { run: ConsoleRun }) {
  const t = useT();
  const given = run.feedback ?? [];
  if (given.length === 0) return null;
  const ups = given.filter((f) => f.rating === "up").length;
  const downs = given.length - ups;
  const comments = given.filter((f) => f.comment).map((f) => `${userLabel(f)}: ${f.comment}`);
  return (
    <span className="console-feedback" data-testid="run-feedback" title={comments.join("\n") || undefined}>
      {downs > 0 && (
        <span className="console-feedback-down" role="img" aria-label={t("feedback.ratedDown")}>
          <Thumb down />
          {downs > 1 && downs}
        </span>
      )}
      {ups > 0 && (
        <span className="console-feedback-up" role="img" aria-label={t("feedback.ratedUp")}>
          <Thumb />
          {ups > 1 && ups}
        </span>
      )}
    </span>
  );
}

function Rated({ feedback }: { feedback: Feedback }) {
  const t = useT();
  const down = feedback.rating === "down";
  return (
    <li data-testid="detail-feedback-item">
      <span className={down ? "console-feedback-down" : "console-feedback-up"}>
        <Thumb down={down} /> {t(down ? "feedback.ratedDown" : "feedback.ratedUp")}
      </span>{" "}
      <span className="muted" title={feedback.user_id}>
        {t("feedback.by", { user: userLabel(feedback), when: formatDate(feedback.updated_at) })}
      </span>
      <p className={feedback.comment ? "console-feedback-comment" : "console-feedback-comment muted"}>
        {feedback.comment ?? t("feedback.noComment")}
      </p>
    </li>
  );
}

/** The detail's section: every rating of the run with its comment. */
export function FeedbackSection({ run }: { run: ConsoleRun }) {
  const t = useT();
  const given = run.feedback ?? [];
  return (
    <section aria-label={t("feedback.section")} data-testid="detail-feedback">
      <h2>{t("feedback.section")}</h2>
      {given.length === 0 ? (
        <p className="muted">{t("feedback.none")}</p>
      ) : (
        <ul className="console-feedback-list">
          {given.map((f) => (
            <Rated key={f.user_id} feedback={f} />
          ))}
        </ul>
      )}
    </section>
  );
}

/** Where the export of the feedback changed in the days the filters show is downloaded. */
export function exportHref(filters: RunFilters): string {
  const query = queryOfFilters(filters);
  const search = new URLSearchParams();
  if (query.from) search.set("since", query.from);
  if (query.to) search.set("until", query.to);
  const qs = search.toString();
  return `/api/admin/feedback/export${qs ? `?${qs}` : ""}`;
}

/** The download of everyone's feedback as JSON Lines (a plain link: the browser keeps the
 * file, the session cookie signs the request). */
export function FeedbackExportLink({ filters }: { filters: RunFilters }) {
  const t = useT();
  return (
    <a className="btn btn-sm" href={exportHref(filters)} download title={t("feedback.exportTitle")} data-testid="feedback-export">
      {t("feedback.export")}
    </a>
  );
}
