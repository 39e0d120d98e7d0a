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
  const countId = useId();
  const count = charCount(value);
  const over = count - max;
  return (
    <div className="field-with-note">
      <label className="field">
        <span>Instructions</span>
        <textarea
          rows={8}
          value={value}
          onChange={(e) => onValue(e.target.value)}
          aria-describedby={countId}
          aria-invalid={over > 0 || undefined}
          placeholder="Added to the system prompt: the agent's role, tone, what to do and not to do."
        />
      </label>
      <span id={countId} className={`char-count ${over > 0 ? "char-count-over" : ""}`} data-testid="instructions-count">
        {count.toLocaleString("en")} / {max.toLocaleString("en")} characters
        {over > 0 ? `: ${over.toLocaleString("en")} too many` : ""}
      </span>
    </div>
  );
}

/** `models` undefined: not loaded yet (the agent's own is shown as it is). */
function ModelField({ value, models, onValue }: { value: string; models: string[] | undefined; onValue: (v: string) => void }) {
  const { defaultModel } = useAppInfo();
  return (
    <label className="field">
      <span>Model</span>
      <select value={value} onChange={(e) => onValue(e.target.value)}>
        <option value="">Server default{defaultModel ? ` (${defaultModel.name})` : ""}</option>
        {(models ?? []).map((m) => (
          <option key={m} value={m}>
            {m}
          </option>
        ))}
        {value && !models?.includes(value) && (
          <option value={value}>
            {value}
            {models ? " (not configured)" : ""}
          </option>
        )}
      </select>
    </label>
  );
}

const NETWORK_LABELS: Record<NetworkMode, string> = {
  none: "No network",
  allowlist: "Only the hosts listed (through the egress proxy, logged)",
  open: "Open (unfiltered, not logged)",
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
  const hint = disabled ? "Set by an admin." : "Only admins can change it.";
  return (
    <>
      <label className="field">
        <span>Sandbox network</span>
        <select
          value={draft.networkMode}
          disabled={disabled}
          title={hint}
          onChange={(e) => set("networkMode")(e.target.value as NetworkMode | "")}
        >
          <option value="">The server's setting</option>
          {NETWORK_MODES.map((m) => (
            <option key={m} value={m}>
              {NETWORK_LABELS[m]}
            </option>
          ))}
        </select>
      </label>
      {(draft.networkMode === "allowlist" || draft.allowedDomains) && (
        <label className="field">
          <span>Allowed hosts</span>
          <textarea
            rows={3}
            value={draft.allowedDomains}
            disabled={disabled}
            onChange={(e) => set("allowedDomains")(e.target.value)}
            placeholder={"One per line: example.com, *.example.com, host:8443, @packages (PyPI, npm)\nEmpty: the server's list"}
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
  const hintId = useId();
  const title = disabled ? "Set by an admin." : "Only admins can change it.";
  return (
    <fieldset className="agent-web" data-testid="agent-web" aria-describedby={hintId}>
      <legend>Web tools</legend>
      <label className="agent-web-check" title={title}>
        <input
          type="checkbox"
          checked={draft.webEnabled}
          disabled={disabled}
          onChange={(e) => set("webEnabled")(e.target.checked)}
        />{" "}
        Web tools (search and read pages)
      </label>
      <label className="field">
        <span>Only these hosts</span>
        <textarea
          rows={3}
          value={draft.webAllowed}
          disabled={disabled}
          title={title}
          onChange={(e) => set("webAllowed")(e.target.value)}
          placeholder={"One per line: example.com, *.example.com, an IP or CIDR\nEmpty: any the server allows"}
        />
      </label>
      <label className="field">
        <span>Never these hosts</span>
        <textarea
          rows={3}
          value={draft.webBlocked}
          disabled={disabled}
          title={title}
          onChange={(e) => set("webBlocked")(e.target.value)}
          placeholder={"One per line: example.com, *.example.com, an IP or CIDR"}
        />
      </label>
      <span id={hintId} className="muted small">
        These narrow the server's web settings, never widen them. {title}
      </span>
    </fieldset>
  );
}

const SCOPE_LABELS: Record<MemoryScope, string> = {
  shared: "What it learns is shared with your other agents",
  assistant: "What it learns stays with this agent",
};

/** Whose the facts the agent learns are (it always reads the shared ones). */
function MemoryScopeField({ value, onValue }: { value: MemoryScope; onValue: (v: MemoryScope) => void }) {
  return (
    <label className="field">
      <span>Memory</span>
      <select value={value} onChange={(e) => onValue(e.target.value as MemoryScope)}>
        {MEMORY_SCOPES.map((s) => (
          <option key={s} value={s}>
            {SCOPE_LABELS[s]}
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
  const [draft, setDraft] = useState<AgentDraft>(() => draftOf(agent));
  const isAdmin = useOptionalAuth()?.me.role === "admin";
  const { busy, error, setError, submit } = useFormAction();
  const set = <K extends keyof AgentDraft>(key: K) => (value: AgentDraft[K]) => setDraft((d) => ({ ...d, [key]: value }));
  const max = choices?.maxPrompt ?? DEFAULT_MAX_PROMPT;
  const tooLong = charCount(draft.instructions) > max;
  const save = submit(async () => {
    if (!draft.name.trim()) {
      setError("Give the agent a name.");
      return;
    }
    const saved = agent
      ? await api.updateAssistant(agent.assistant_id, patchBody(agent, draft))
      : await api.createAssistant(createBody(draft));
    onSaved(saved);
  });
  return (
    <form className="agent-form" onSubmit={save} aria-label={agent ? `Edit ${agent.name}` : "New agent"} noValidate>
      <Field label="Name" required maxLength={MAX_NAME} value={draft.name} onValue={set("name")} autoComplete="off" />
      <Field
        label="Description"
        maxLength={MAX_DESCRIPTION}
        value={draft.description}
        onValue={set("description")}
        placeholder="What it is for"
        autoComplete="off"
      />
      <InstructionsField value={draft.instructions} max={max} onValue={set("instructions")} />
      <ModelField value={draft.model} models={choices?.models} onValue={set("model")} />
      <MemoryScopeField value={draft.memoryScope} onValue={set("memoryScope")} />
      {(isAdmin || draft.sandboxImage) && (
        <Field
          label="Sandbox image"
          value={draft.sandboxImage}
          onValue={set("sandboxImage")}
          placeholder="The server's (antler-sandbox:full)"
          autoComplete="off"
          disabled={!isAdmin}
          title={isAdmin ? "The Docker image its conversations' sandboxes start from. Only admins can change it." : "Set by an admin."}
        />
      )}
      {(isAdmin || draft.secrets) && (
        <Field
          label="Secrets it gets"
          value={draft.secrets}
          onValue={set("secrets")}
          placeholder="Names from Settings → Secrets, e.g. IMAGE_API_KEY"
          autoComplete="off"
          disabled={!isAdmin}
          title={isAdmin ? "Its commands get these as environment variables. Only admins can change it." : "Set by an admin."}
        />
      )}
      {(isAdmin || draft.networkMode || draft.allowedDomains) && (
        <NetworkField draft={draft} disabled={!isAdmin} set={set} />
      )}
      {(isAdmin || !draft.webEnabled || draft.webAllowed || draft.webBlocked) && (
        <WebField draft={draft} disabled={!isAdmin} set={set} />
      )}
      <NameChoice
        legend="Skills"
        allLabel="All enabled skills"
        someLabel="Only the skills checked"
        names={skillNames ?? []}
        value={draft.skills}
        onChange={set("skills")}
        searchable
        {...(skillNames ? { missingNote: "not enabled" } : {})}
      />
      <NameChoice
        legend="Tools"
        allLabel="All tools"
        someLabel="Only the tools checked"
        names={choices?.tools ?? []}
        value={draft.tools}
        onChange={set("tools")}
        searchable={(choices?.tools.length ?? 0) > 10}
        {...(choices ? { missingNote: "unknown" } : {})}
      />
      <FormError error={error} testId="agent-form-error" />
      <div className="form-actions">
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={busy || tooLong} data-testid="save-agent">
          {busy ? "Saving…" : agent ? "Save" : "Create agent"}
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
  const loadChoices = useCallback((signal: AbortSignal) => api.assistantSchemas(GRAPH_ID, signal).then(choicesOf), []);
  const choices = useResource(open ? "agent-choices" : null, loadChoices);
  const skills = useResource(open ? "agent-skills" : null, () => api.skills().then(enabledSkillNames));
  const title = agent ? `Edit “${agent.name}”` : "New agent";
  return (
    <Dialog open={open} title={title} onClose={onClose} className="agent-dialog">
      {choices.error && <ErrorState message={`Models and tools: ${choices.error}`} onRetry={choices.reload} />}
      {skills.error && <ErrorState message={`Skills: ${skills.error}`} onRetry={skills.reload} />}
      {agent && (
        <p className="muted small">
          Version {agent.version}. Saving makes a new version; earlier ones can be restored from Versions.
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
