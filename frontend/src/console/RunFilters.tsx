// The console's filters: who, which agent, which status, and the days the runs started in.
// Every change applies at once (the page keeps them in the URL).
import { useT } from "../i18n";
import { FEEDBACK_FILTERS, hasFilters, NO_FILTERS, RUN_STATUSES, type RunFilters as Filters } from "./filters";

/** A value a menu offers, with what people read. */
export interface Choice {
  id: string;
  label: string;
}

interface Props {
  filters: Filters;
  onChange: (filters: Filters) => void;
  /** The people runs can be filtered by (accounts, and owners seen in the runs). */
  users: Choice[];
  /** The agents runs can be filtered by. */
  agents: Choice[];
}

/** `known`, plus the current value when it is not among them (a link may name anyone). */
function withCurrent(known: Choice[], current: string): Choice[] {
  return !current || known.some((c) => c.id === current) ? known : [...known, { id: current, label: current }];
}

function ChoiceSelect(props: { label: string; any: string; value: string; choices: Choice[]; onValue: (v: string) => void }) {
  return (
    <label className="field">
      <span>{props.label}</span>
      <select value={props.value} onChange={(e) => props.onValue(e.target.value)}>
        <option value="">{props.any}</option>
        {withCurrent(props.choices, props.value).map((c) => (
          <option key={c.id} value={c.id}>
            {c.label}
          </option>
        ))}
      </select>
    </label>
  );
}

export function RunFilters({ filters, onChange, users, agents }: Props) {
  const t = useT();
  const set = (patch: Partial<Filters>) => onChange({ ...filters, ...patch });
  const statuses = RUN_STATUSES.map((s) => ({ id: s, label: t(`common.runStatus.${s}`) }));
  return (
    <form className="console-filters" aria-label={t("console.filters.label")} onSubmit={(e) => e.preventDefault()}>
      <ChoiceSelect
        label={t("console.columns.user")}
        any={t("console.filters.allUsers")}
        value={filters.user}
        choices={users}
        onValue={(user) => set({ user })}
      />
      <ChoiceSelect
        label={t("console.columns.agent")}
        any={t("console.filters.allAgents")}
        value={filters.assistant_id}
        choices={agents}
        onValue={(assistant_id) => set({ assistant_id })}
      />
      <ChoiceSelect
        label={t("console.columns.status")}
        any={t("console.filters.anyStatus")}
        value={filters.status}
        choices={statuses}
        onValue={(status) => set({ status: status as Filters["status"] })}
      />
      <ChoiceSelect
        label={t("feedback.filter")}
        any={t("feedback.filterAll")}
        value={filters.feedback}
        choices={FEEDBACK_FILTERS.map((f) => ({ id: f, label: t(`feedback.filterBy.${f}`) }))}
        onValue={(feedback) => set({ feedback: feedback as Filters["feedback"] })}
      />
      <label className="field">
        <span>{t("console.filters.from")}</span>
        <input type="date" value={filters.from} max={filters.to || undefined} onChange={(e) => set({ from: e.target.value })} />
      </label>
      <label className="field">
        <span>{t("console.filters.to")}</span>
        <input type="date" value={filters.to} min={filters.from || undefined} onChange={(e) => set({ to: e.target.value })} />
      </label>
      <button type="button" className="btn btn-sm" disabled={!hasFilters(filters)} onClick={() => onChange(NO_FILTERS)}>
        {t("console.filters.clear")}
      </button>
    </form>
  );
}
