// `/scheduled`: the person's schedules (crons), each with when it runs next and how its last
// run went; create, pause or resume, edit, run now, delete.
import { useEffect, useState } from "react";
import { Trans } from "react-i18next";
import { Link } from "react-router-dom";
import { type Cron, cronsApi } from "../api/crons";
import { errorMessage } from "../api/http";
import { ConfirmDialog } from "../components/Dialog";
import { Icon } from "../components/Icon";
import { EmptyState, ErrorState, Spinner } from "../components/States";
import { useToast } from "../components/Toasts";
import { useT } from "../i18n";
import { useResource } from "../lib/useResource";
import { assistantsStore, ensureAssistants } from "../state/assistants";
import { useStore } from "../state/store";
import { CronRow } from "./CronRow";
import { nameOf } from "./cronView";
import { ScheduleDialog } from "./ScheduleDialog";

/** The most schedules the page lists (one page of the search). */
const LIMIT = 100;

/** Active schedules by their next run, then paused ones by name. */
function ordered(crons: Cron[]): Cron[] {
  const key = (c: Cron) => (c.enabled && c.next_run_date ? Date.parse(c.next_run_date) : Number.POSITIVE_INFINITY);
  return [...crons].sort((a, b) => key(a) - key(b) || nameOf(a).localeCompare(nameOf(b)));
}

export function ScheduledPage() {
  const { data, error, reload } = useResource("crons", (signal) =>
    cronsApi.search({ limit: LIMIT, offset: 0, sort_by: "next_run_date", sort_order: "asc" }, signal),
  );
  const [crons, setCrons] = useState<Cron[] | null>(null);
  useEffect(() => setCrons(data), [data]);
  const { list: agents } = useStore(assistantsStore);
  useEffect(ensureAssistants, []);
  const [editing, setEditing] = useState<Cron | null>(null);
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<Cron | null>(null);
  const [deleteBusy, setDeleteBusy] = useState(false);
  const toast = useToast();
  const t = useT();
  const replace = (cron: Cron, previous: string = cron.cron_id) =>
    setCrons((cs) => {
      const rest = (cs ?? []).filter((c) => c.cron_id !== previous && c.cron_id !== cron.cron_id);
      return [...rest, cron];
    });
  const confirmDelete = async () => {
    if (!deleting) return;
    setDeleteBusy(true);
    try {
      await cronsApi.delete(deleting.cron_id);
      setCrons((cs) => (cs ?? []).filter((c) => c.cron_id !== deleting.cron_id));
      toast({ kind: "success", message: t("scheduled.deleted", { name: nameOf(deleting) }) });
    } catch (e) {
      toast({ kind: "error", message: errorMessage(e) });
    }
    setDeleteBusy(false);
    setDeleting(null);
  };
  const agentName = (id: string) => agents?.find((a) => a.assistant_id === id)?.name;
  const shown = crons ? ordered(crons) : null;
  return (
    <main className="page scheduled-page" id="main">
      <div className="page-head">
        <h1>{t("scheduled.title")}</h1>
        <div className="page-actions">
          <button type="button" className="btn btn-sm" onClick={reload} aria-label={t("common.refresh")}>
            <Icon name="refresh" size={14} />
          </button>
          <button type="button" className="btn btn-primary btn-sm" onClick={() => setCreating(true)}>
            <Icon name="plus" size={14} /> {t("scheduled.newSchedule")}
          </button>
        </div>
      </div>
      <p className="muted">{t("scheduled.intro")}</p>
      {error && <ErrorState message={error} onRetry={reload} />}
      {!shown && !error && <Spinner label={t("scheduled.loading")} />}
      {shown && shown.length === 0 && (
        <EmptyState icon="info" title={t("scheduled.empty")}>
          <p>
            {/* In Chinese the example is English input, set as code. */}
            <Trans t={t} i18nKey="scheduled.emptyBody" components={{ strong: <strong />, code: <code /> }} />
          </p>
          <Link to="/">{t("scheduled.goToChat")}</Link>
        </EmptyState>
      )}
      {shown && shown.length > 0 && (
        <ul className="cron-list" aria-label={t("scheduled.list")}>
          {shown.map((c) => (
            <CronRow
              key={c.cron_id}
              cron={c}
              agentName={agentName(c.assistant_id)}
              onChanged={(next) => replace(next)}
              onEdit={setEditing}
              onDelete={setDeleting}
            />
          ))}
        </ul>
      )}
      <ScheduleDialog
        open={creating || editing !== null}
        cron={editing ?? undefined}
        onClose={() => {
          setCreating(false);
          setEditing(null);
        }}
        onSaved={(saved) => {
          replace(saved, editing?.cron_id);
          toast({ kind: "success", message: editing ? t("scheduled.saved") : t("scheduled.created") });
          setCreating(false);
          setEditing(null);
        }}
      />
      <ConfirmDialog
        open={deleting !== null}
        title={t("scheduled.deleteTitle")}
        message={t("scheduled.deleteMessage", { name: deleting ? nameOf(deleting) : "" })}
        confirmLabel={t("common.delete")}
        danger
        busy={deleteBusy}
        onConfirm={() => void confirmDelete()}
        onCancel={() => setDeleting(null)}
      />
    </main>
  );
}
