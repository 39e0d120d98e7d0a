// The form of a new agent, or of a change to one (which saves a new version): name,
// description, instructions, model, whose its memory is, and the skills and tools it may use.
import { useCallback, useId, useState } from "react";
import { api } from "../api/client";
import type { Assistant, SkillList } from "../api/types";
import { Dialog } from "../components/Dialog";
import { Field, FormError, useFormAction } from "../components/Form";
import { ErrorState } from "../components/States";
import {
  type AgentChoices,
  type AgentDraft,
  DEFAULT_MAX_PROMPT,
  GRAPH_ID,
  MEMORY_SCOPES,
  type MemoryScope,
  NETWORK_MODES,
  type NetworkMode,
  charCount,
  choicesOf,
  createBody,
  draftOf,
  patchBody,
} from "../lib/agents";
import { useOptionalAuth } from "../auth/auth";
import { formatNumber, useT } from "../i18n";
import { useResource } from "../lib/useResource";
import { useAppInfo } from "../state/appInfo";
import { NameChoice } from "./NameChoice";

/** Longest name and description the server takes. */
const MAX_NAME = 200;
const MAX_DESCRIPTION = 2000;

/** The skills an agent can be given: enabled ones, by name (a name in two categories once). */
export function enabledSkillNames(list: SkillList): string[] {
  return [...new Set(list.skills.filter((s) => s.enabled).map((s) => s.name))].sort();
}

function InstructionsField({ value, max, onValue }: { value: string; max: number; onValue: (v: string) => void }) {
  const t = useT();
  const countId = useId();
  const count = charCount(value);
  const over = count - max;
  return (
    <div className="field-with-note">
      <label className="field">
        <span>{t("settings.agentForm.instructions")}</span>
        <textarea
          rows={8}
          value={value}
          onChange={(e) => onValue(e.target.value)}
          aria-describedby={countId}
          aria-invalid={over > 0 || undefined}
          placeholder={t("settings.agentForm.instructionsPlaceholder")}
        />
      </label>
      <span id={countId} className={`char-count ${over > 0 ? "char-count-over" : ""}`} data-testid="instructions-count">
        {t("settings.agentForm.charCount", { n: formatNumber(count), max: formatNumber(max) })}
        {over > 0 ? t("settings.agentForm.tooMany", { n: formatNumber(over) }) : ""}
      </span>
    </div>
  );
}

/** `models` undefined: not loaded yet (the agent's own is shown as it is). */
function ModelField({ value, models, onValue }: { value: string; models: string[] | undefined; onValue: (v: string) => void }) {
  const t = useT();
  const { defaultModel } = useAppInfo();
  return (
    <label className="field">
      <span>{t("settings.agentForm.model")}</span>
      <select value={value} onChange={(e) => onValue(e.target.value)}>
        <option value="">
          {defaultModel
            ? t("settings.agentForm.serverDefaultNamed", { name: defaultModel.name })
            : t("settings.agentForm.serverDefault")}
        </option>
        {(models ?? []).map((m) => (
          <option key={m} value={m}>
            {m}
          </option>
        ))}
        {value && !models?.includes(value) && (
          <option value={value}>
            {models ? t("settings.agentForm.notConfigured", { name: value }) : value}
          </option>
        )}
      </select>
    </label>
  );
}

/** The catalogue keys of the network modes' labels. */
const NETWORK_LABELS: Record<NetworkMode, string> = {
  none: "settings.agentForm.network.none",
  allowlist: "settings.agentForm.network.allowlist",
  open: "settings.agentForm.network.open",
};

/** The agent's sandbox network policy: a mode and its allow-list (admins only). */
function NetworkField({
  draft,
  disabled,
  set,
}: {
  draft: AgentDraft;
  disabled: boolean;
  set: <K extends keyof AgentDraft>(key: K) => (value: AgentDraft[K]) => void;
}) {
  const t = useT();
  const hint = disabled ? t("settings.common.setByAdmin") : t("settings.common.onlyAdmins");
  return (
    <>
      <label className="field">
        <span>{t("settings.agentForm.sandboxNetwork")}</span>
        <select
          value={draft.networkMode}
          disabled={disabled}
          title={hint}
          onChange={(e) => set("networkMode")(e.target.value as NetworkMode | "")}
        >
          <option value="">{t("settings.agentForm.serverSetting")}</option>
          {NETWORK_MODES.map((m) => (
            <option key={m} value={m}>
              {t(NETWORK_LABELS[m])}
            </option>
          ))}
        </select>
      </label>
      {(draft.networkMode === "allowlist" || draft.allowedDomains) && (
        <label className="field">
          <span>{t("settings.agentForm.allowedHosts")}</span>
          <textarea
            rows={3}
            value={draft.allowedDomains}
            disabled={disabled}
            onChange={(e) => set("allowedDomains")(e.target.value)}
            placeholder={t("settings.agentForm.allowedHostsPlaceholder")}
          />
        </label>
      )}
    </>
  );
}

/** The agent's web tools: on or off, and the hosts they may or may not reach (admins only). */
function WebField({
  draft,
  disabled,
  set,
}: {
  draft: AgentDraft;
  disabled: boolean;
  set: <K extends keyof AgentDraft>(key: K) => (value: AgentDraft[K]) => void;
}) {
  const t = useT();
  const hintId = useId();
  const title = disabled ? t("settings.common.setByAdmin") : t("settings.common.onlyAdmins");
  return (
    <fieldset className="agent-web" data-testid="agent-web" aria-describedby={hintId}>
      <legend>{t("settings.agentForm.webTools")}</legend>
      <label className="agent-web-check" title={title}>
        <input
          type="checkbox"
          checked={draft.webEnabled}
          disabled={disabled}
          onChange={(e) => set("webEnabled")(e.target.checked)}
        />{" "}
        {t("settings.agentForm.webToolsCheck")}
      </label>
      <label className="field">
        <span>{t("settings.agentForm.onlyHosts")}</span>
        <textarea
          rows={3}
          value={draft.webAllowed}
          disabled={disabled}
          title={title}
          onChange={(e) => set("webAllowed")(e.target.value)}
          placeholder={t("settings.agentForm.onlyHostsPlaceholder")}
        />
      </label>
      <label className="field">
        <span>{t("settings.agentForm.neverHosts")}</span>
        <textarea
          rows={3}
          value={draft.webBlocked}
          disabled={disabled}
          title={title}
          onChange={(e) => set("webBlocked")(e.target.value)}
          placeholder={t("settings.agentForm.neverHostsPlaceholder")}
        />
      </label>
      <span id={hintId} className="muted small">
        {t("settings.agentForm.webNarrow", { hint: title })}
      </span>
    </fieldset>
  );
}

/** The catalogue keys of the memory scopes' labels. */
const SCOPE_LABELS: Record<MemoryScope, string> = {
  shared: "settings.agentForm.scope.shared",
  assistant: "settings.agentForm.scope.assistant",
};

/** Whose the facts the agent learns are (it always reads the shared ones). */
function MemoryScopeField({ value, onValue }: { value: MemoryScope; onValue: (v: MemoryScope) => void }) {
  const t = useT();
  return (
    <label className="field">
      <span>{t("settings.agentForm.memory")}</span>
      <select value={value} onChange={(e) => onValue(e.target.value as MemoryScope)}>
        {MEMORY_SCOPES.map((s) => (
          <option key={s} value={s}>
            {t(SCOPE_LABELS[s])}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The fields, with what the server offers; `agent` null: a new one. */
function AgentFormBody({
  agent,
  choices,
  skillNames,
  onCancel,
  onSaved,
}: {
  agent: Assistant | null;
  choices: AgentChoices | undefined;
  /** Undefined until loaded. */
  skillNames: string[] | undefined;
  onCancel: () => void;
  onSaved: (saved: Assistant) => void;
}) {
  const t = useT();
  const [draft, setDraft] = useState<AgentDraft>(() => draftOf(agent));
  const isAdmin = useOptionalAuth()?.me.role === "admin";
  const { busy, error, setError, submit } = useFormAction();
  const set = <K extends keyof AgentDraft>(key: K) => (value: AgentDraft[K]) => setDraft((d) => ({ ...d, [key]: value }));
  const max = choices?.maxPrompt ?? DEFAULT_MAX_PROMPT;
  const tooLong = charCount(draft.instructions) > max;
  const save = submit(async () => {
    if (!draft.name.trim()) {
      setError(t("settings.agentForm.nameRequired"));
      return;
    }
    const saved = agent
      ? await api.updateAssistant(agent.assistant_id, patchBody(agent, draft))
      : await api.createAssistant(createBody(draft));
    onSaved(saved);
  });
  return (
    <form
      className="agent-form"
      onSubmit={save}
      aria-label={agent ? t("settings.common.editNamed", { name: agent.name }) : t("settings.agentForm.newAgent")}
      noValidate
    >
      <Field label={t("settings.common.name")} required maxLength={MAX_NAME} value={draft.name} onValue={set("name")} autoComplete="off" />
      <Field
        label={t("settings.common.description")}
        maxLength={MAX_DESCRIPTION}
        value={draft.description}
        onValue={set("description")}
        placeholder={t("settings.common.whatFor")}
        autoComplete="off"
      />
      <InstructionsField value={draft.instructions} max={max} onValue={set("instructions")} />
      <ModelField value={draft.model} models={choices?.models} onValue={set("model")} />
      <MemoryScopeField value={draft.memoryScope} onValue={set("memoryScope")} />
      {(isAdmin || draft.sandboxImage) && (
        <Field
          label={t("settings.agentForm.sandboxImage")}
          value={draft.sandboxImage}
          onValue={set("sandboxImage")}
          placeholder={t("settings.agentForm.sandboxImagePlaceholder")}
          autoComplete="off"
          disabled={!isAdmin}
          title={isAdmin ? t("settings.agentForm.sandboxImageTitle") : t("settings.common.setByAdmin")}
        />
      )}
      {(isAdmin || draft.secrets) && (
        <Field
          label={t("settings.agentForm.secrets")}
          value={draft.secrets}
          onValue={set("secrets")}
          placeholder={t("settings.agentForm.secretsPlaceholder")}
          autoComplete="off"
          disabled={!isAdmin}
          title={isAdmin ? t("settings.agentForm.secretsTitle") : t("settings.common.setByAdmin")}
        />
      )}
      {(isAdmin || draft.networkMode || draft.allowedDomains) && (
        <NetworkField draft={draft} disabled={!isAdmin} set={set} />
      )}
      {(isAdmin || !draft.webEnabled || draft.webAllowed || draft.webBlocked) && (
        <WebField draft={draft} disabled={!isAdmin} set={set} />
      )}
      <NameChoice
        testId="choice-skills"
        legend={t("settings.agentForm.skills")}
        allLabel={t("settings.agentForm.allSkills")}
        someLabel={t("settings.agentForm.someSkills")}
        names={skillNames ?? []}
        value={draft.skills}
        onChange={set("skills")}
        searchable
        {...(skillNames ? { missingNote: t("settings.agentForm.notEnabled") } : {})}
      />
      <NameChoice
        testId="choice-tools"
        legend={t("settings.agentForm.tools")}
        allLabel={t("settings.agentForm.allTools")}
        someLabel={t("settings.agentForm.someTools")}
        names={choices?.tools ?? []}
        value={draft.tools}
        onChange={set("tools")}
        searchable={(choices?.tools.length ?? 0) > 10}
        {...(choices ? { missingNote: t("settings.agentForm.unknown") } : {})}
      />
      <FormError error={error} testId="agent-form-error" />
      <div className="form-actions">
        <button type="button" className="btn" onClick={onCancel}>
          {t("settings.common.cancel")}
        </button>
        <button type="submit" className="btn btn-primary" disabled={busy || tooLong} data-testid="save-agent">
          {busy ? t("settings.common.saving") : agent ? t("settings.common.save") : t("settings.agentForm.createAgent")}
        </button>
      </div>
    </form>
  );
}

/** The agent form in a dialog; `agent` null: a new agent. The choices load when it opens. */
export function AgentForm({
  open,
  agent,
  onClose,
  onSaved,
}: {
  open: boolean;
  agent: Assistant | null;
  onClose: () => void;
  onSaved: (saved: Assistant) => void;
}) {
  const t = useT();
  const loadChoices = useCallback((signal: AbortSignal) => api.assistantSchemas(GRAPH_ID, signal).then(choicesOf), []);
  const choices = useResource(open ? "agent-choices" : null, loadChoices);
  const skills = useResource(open ? "agent-skills" : null, () => api.skills().then(enabledSkillNames));
  const title = agent ? t("settings.common.editQuoted", { name: agent.name }) : t("settings.agentForm.newAgent");
  return (
    <Dialog open={open} title={title} onClose={onClose} className="agent-dialog">
      {choices.error && <ErrorState message={t("settings.agentForm.choicesError", { error: choices.error })} onRetry={choices.reload} />}
      {skills.error && <ErrorState message={t("settings.agentForm.skillsError", { error: skills.error })} onRetry={skills.reload} />}
      {agent && (
        <p className="muted small">
          {t("settings.agentForm.versionNote", { version: agent.version })}
        </p>
      )}
      <AgentFormBody
        key={agent ? `${agent.assistant_id}:${agent.version}` : "new"}
        agent={agent}
        choices={choices.data ?? undefined}
        skillNames={skills.data ?? undefined}
        onCancel={onClose}
        onSaved={onSaved}
      />
    </Dialog>
  );
}
