// Settings → Memory's own settings: the on/off switch and the summary the agent is given.
import { useState } from "react";
import { api } from "../api/client";
import { errorMessage } from "../api/http";
import type { MemorySettings } from "../api/types";
import { FormError, useFormAction } from "../components/Form";
import { Switch } from "../components/Switch";

/** The switch; turning it saves at once (with the saved summary: a PUT sets both). */
export function MemorySwitch({ settings, onSaved }: { settings: MemorySettings; onSaved: (s: MemorySettings) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const toggle = async (enabled: boolean) => {
    setBusy(true);
    setError(undefined);
    try {
      onSaved(await api.setMemorySettings({ enabled, summary: settings.summary ?? null }));
    } catch (e) {
      setError(`Could not turn memory ${enabled ? "on" : "off"}: ${errorMessage(e)}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="memory-switch">
      <Switch checked={settings.enabled} onChange={(on) => void toggle(on)} label="Remember facts about me" busy={busy} />
      <p className="memory-switch-text" data-testid="memory-switch-text">
        {settings.enabled
          ? "On: the agent learns facts about you from your conversations and is given the relevant ones when it answers."
          : "Off: the agent learns nothing new and is given no facts; the ones below are kept."}
      </p>
      <FormError error={error} />
    </div>
  );
}

/** The summary of the person's context, edited here and saved with its button. */
export function SummaryForm({ settings, onSaved }: { settings: MemorySettings; onSaved: (s: MemorySettings) => void }) {
  const saved = settings.summary ?? "";
  // `null`: not edited, the saved summary is shown.
  const [draft, setDraft] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const { busy, error, submit } = useFormAction();
  const text = draft ?? saved;
  const save = submit(async () => {
    setDone(false);
    onSaved(await api.setMemorySettings({ enabled: settings.enabled, summary: text.trim() || null }));
    setDraft(null);
    setDone(true);
  });
  return (
    <form className="settings-form memory-summary" onSubmit={save}>
      <label className="field">
        <span>Summary</span>
        <textarea
          rows={3}
          value={text}
          placeholder="A few lines about you and your work that the agent should always know."
          onChange={(e) => {
            setDraft(e.target.value);
            setDone(false);
          }}
        />
      </label>
      <p className="muted small">Given to the agent with the facts, while memory is on.</p>
      <FormError error={error} testId="memory-summary-error" />
      <div className="form-actions">
        {done && (
          <span className="muted small" role="status">
            Saved.
          </span>
        )}
        <button type="submit" className="btn btn-sm btn-primary" disabled={busy || text === saved}>
          {busy ? "Saving…" : "Save summary"}
        </button>
      </div>
    </form>
  );
}
