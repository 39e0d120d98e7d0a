// The dialog that creates a schedule (from a chat or the Scheduled page) or changes one: the
// message, when it runs (simple English or cron, with a live preview), the timezone, the agent
// and, from a chat, whether the runs continue that conversation.
import { useEffect, useId, useMemo, useState } from "react";
import { Trans } from "react-i18next";
import { type Cron, cronsApi } from "../api/crons";
import { Dialog } from "../components/Dialog";
import { FormError, useFormAction } from "../components/Form";
import { useT } from "../i18n";
import { isBuiltIn, resolveAgent } from "../lib/agents";
import {
  browserTimezone,
  describeSchedule,
  formatRunTime,
  isTimezone,
  nextRuns,
  parseSchedule,
  timezones,
} from "../lib/schedule";
import { assistantsStore, ensureAssistants } from "../state/assistants";
import { useStore } from "../state/store";
import { type ScheduleDraft, createBody, draftOf, firstWords, patchBody } from "./cronView";

export interface ScheduleDialogProps {
  open: boolean;
  onClose: () => void;
  /** The schedule to change; without it the dialog creates one. */
  cron?: Cron | undefined;
  /** The conversation the dialog was opened from: its runs may continue it. */
  threadId?: string | undefined;
  /** The message a new schedule starts with (the composer's text or the last one sent). */
  initialMessage?: string | undefined;
  /** The agent a new schedule starts with (the chat's). */
  initialAgent?: string | undefined;
  onSaved: (cron: Cron) => void;
}

export function ScheduleDialog(props: ScheduleDialogProps) {
  const formId = useId();
  const { busy, error, setError, submit } = useFormAction();
  const [valid, setValid] = useState(false);
  const editing = !!props.cron;
  const t = useT();
  // A failure of the last time the dialog was open is not this time's.
  useEffect(() => {
    if (props.open) setError(undefined);
  }, [props.open, setError]);
  return (
    <Dialog
      open={props.open}
      title={
        editing
          ? t("scheduled.dialog.editTitle")
          : props.threadId || props.initialMessage
            ? t("scheduled.dialog.scheduleMessage")
            : t("scheduled.newSchedule")
      }
      onClose={props.onClose}
      className="schedule-dialog"
      footer={
        <>
          <FormError error={error} testId="schedule-error" />
          <button type="button" className="btn" onClick={props.onClose}>
            {t("common.cancel")}
          </button>
          <button type="submit" form={formId} className="btn btn-primary" disabled={busy || !valid}>
            {editing ? t("scheduled.dialog.saveChanges") : t("scheduled.dialog.create")}
          </button>
        </>
      }
    >
      <ScheduleForm {...props} formId={formId} submit={submit} onValid={setValid} />
    </Dialog>
  );
}

interface FormProps extends ScheduleDialogProps {
  formId: string;
  submit: ReturnType<typeof useFormAction>["submit"];
  onValid: (valid: boolean) => void;
}

function initialDraft(props: ScheduleDialogProps): ScheduleDraft {
  if (props.cron) return draftOf(props.cron);
  return {
    name: "",
    message: props.initialMessage ?? "",
    when: "",
    timezone: browserTimezone(),
    assistantId: props.initialAgent ?? "",
    inThread: false,
  };
}

/** Saves `draft`: creates, changes, or (another agent, which a schedule cannot change)
 * replaces the schedule. */
async function save(props: ScheduleDialogProps, draft: ScheduleDraft, schedule: string): Promise<Cron> {
  const cron = props.cron;
  if (!cron) {
    const body = createBody(draft, schedule);
    return draft.inThread && props.threadId ? cronsApi.createForThread(props.threadId, body) : cronsApi.create(body);
  }
  if (draft.assistantId && draft.assistantId !== cron.assistant_id) {
    const body = createBody(draft, schedule, cron.enabled);
    const created = cron.thread_id ? await cronsApi.createForThread(cron.thread_id, body) : await cronsApi.create(body);
    await cronsApi.delete(cron.cron_id);
    return created;
  }
  const patch = patchBody(cron, draft, schedule);
  return Object.keys(patch).length === 0 ? cron : cronsApi.update(cron.cron_id, patch);
}

function ScheduleForm(props: FormProps) {
  const [draft, setDraft] = useState<ScheduleDraft>(() => initialDraft(props));
  const { list } = useStore(assistantsStore);
  useEffect(ensureAssistants, []);
  const ids = useId();
  const parsed = useMemo(() => parseSchedule(draft.when), [draft.when]);
  const timezoneOk = isTimezone(draft.timezone.trim());
  const agents = list ?? [];
  // The chat's agent (the built-in one when it was deleted), else the built-in one.
  const assistantId =
    resolveAgent(list, draft.assistantId) || agents.find(isBuiltIn)?.assistant_id || agents[0]?.assistant_id || "";
  const valid = parsed.ok && timezoneOk && draft.message.trim().length > 0 && assistantId !== "";
  const { onValid } = props;
  useEffect(() => onValid(valid), [valid, onValid]);
  const set = <K extends keyof ScheduleDraft>(key: K) => (value: ScheduleDraft[K]) => setDraft((d) => ({ ...d, [key]: value }));
  const zones = useMemo(timezones, []);
  const onSubmit = props.submit(async () => {
    if (!parsed.ok || !valid) return;
    const saved = await save(props, { ...draft, assistantId }, parsed.cron);
    props.onSaved(saved);
  });
  const whenInvalid = draft.when.trim() !== "" && !parsed.ok;
  const t = useT();
  return (
    <form
      id={props.formId}
      className="schedule-form"
      onSubmit={onSubmit}
      aria-label={props.cron ? t("scheduled.dialog.editTitle") : t("scheduled.newSchedule")}
    >
      <label className="field">
        <span>{t("scheduled.dialog.message")}</span>
        <textarea
          required
          rows={3}
          value={draft.message}
          onChange={(e) => set("message")(e.target.value)}
          placeholder={t("scheduled.dialog.messagePlaceholder")}
        />
      </label>
      <label className="field">
        <span>{t("scheduled.dialog.name")}</span>
        <input
          value={draft.name}
          onChange={(e) => set("name")(e.target.value)}
          placeholder={firstWords(draft.message) || t("scheduled.dialog.namePlaceholder")}
          maxLength={200}
          autoComplete="off"
        />
      </label>
      <label className="field">
        <span>{t("scheduled.dialog.when")}</span>
        <input
          required
          value={draft.when}
          onChange={(e) => set("when")(e.target.value)}
          placeholder={t("scheduled.dialog.whenPlaceholder")}
          autoComplete="off"
          spellCheck={false}
          autoFocus
          aria-invalid={whenInvalid || undefined}
          aria-describedby={`${ids}-preview`}
          data-testid="schedule-when"
        />
      </label>
      <div id={`${ids}-preview`} className="schedule-preview" aria-live="polite" data-testid="schedule-preview">
        {draft.when.trim() === "" ? (
          <p className="muted">
            {/* The field reads English: in Chinese the examples are set as code. */}
            <Trans t={t} i18nKey="scheduled.dialog.whenHelp" components={{ code: <code /> }} />
          </p>
        ) : parsed.ok ? (
          <Preview cron={parsed.cron} timezone={timezoneOk ? draft.timezone.trim() : "UTC"} />
        ) : (
          <p className="form-error" data-testid="schedule-when-error">
            {parsed.error}
          </p>
        )}
      </div>
      <label className="field">
        <span>{t("scheduled.dialog.timezone")}</span>
        <input
          required
          value={draft.timezone}
          onChange={(e) => set("timezone")(e.target.value)}
          list={`${ids}-zones`}
          autoComplete="off"
          spellCheck={false}
          aria-invalid={!timezoneOk || undefined}
          aria-describedby={timezoneOk ? undefined : `${ids}-tz-error`}
        />
        <datalist id={`${ids}-zones`}>
          {zones.map((z) => (
            <option key={z} value={z} />
          ))}
        </datalist>
      </label>
      {!timezoneOk && (
        <p className="form-error" id={`${ids}-tz-error`}>
          {t("scheduled.dialog.notTimezone")}
        </p>
      )}
      <label className="field">
        <span>{t("scheduled.dialog.agent")}</span>
        <select value={assistantId} onChange={(e) => set("assistantId")(e.target.value)} disabled={agents.length === 0}>
          {agents.length === 0 && <option value={assistantId}>{t("scheduled.dialog.loadingAgents")}</option>}
          {agents.map((a) => (
            <option key={a.assistant_id} value={a.assistant_id}>
              {isBuiltIn(a) ? t("scheduled.dialog.builtIn", { name: a.name }) : a.name}
            </option>
          ))}
        </select>
      </label>
      {props.cron && assistantId !== props.cron.assistant_id && (
        <p className="muted">{t("scheduled.dialog.anotherAgent")}</p>
      )}
      {!props.cron && props.threadId && (
        <fieldset className="schedule-where">
          <legend>{t("scheduled.dialog.where")}</legend>
          <label>
            <input type="radio" name={`${ids}-where`} checked={!draft.inThread} onChange={() => set("inThread")(false)} />
            {t("scheduled.dialog.newEachTime")}
          </label>
          <label>
            <input type="radio" name={`${ids}-where`} checked={draft.inThread} onChange={() => set("inThread")(true)} />
            {t("scheduled.dialog.inThisConversation")}
          </label>
        </fieldset>
      )}
    </form>
  );
}

/** The cron expression, its description and its next three run times. */
function Preview({ cron, timezone }: { cron: string; timezone: string }) {
  const runs = nextRuns(cron, timezone, 3);
  const t = useT();
  return (
    <div className="schedule-preview-body">
      <p>
        <code data-testid="schedule-cron">{cron}</code> <span data-testid="schedule-description">{describeSchedule(cron, timezone)}</span>
      </p>
      {runs.length > 0 ? (
        <>
          <p className="muted">{t("scheduled.dialog.nextRuns")}</p>
          <ol className="schedule-next" data-testid="schedule-next">
            {runs.map((r) => (
              <li key={r.toISOString()}>
                <time dateTime={r.toISOString()}>{formatRunTime(r, timezone)}</time>
              </li>
            ))}
          </ol>
        </>
      ) : (
        <p className="muted">{t("scheduled.dialog.neverRuns")}</p>
      )}
    </div>
  );
}
