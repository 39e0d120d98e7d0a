// Settings → Memory's own settings: the on/off switch and the summary the agent is given.
import { useState } from "react";
import { api } from "../api/client";
import { errorMessage } from "../api/http";
import type { MemorySettings } from "../api/types";
import { FormError, useFormAction } from "../components/Form";
import { Switch } from "../components/Switch";
import { useT } from "../i18n";

/** The switch; turning it saves at once (with the saved summary: a PUT sets both). */
export function MemorySwitch({ settings, onSaved }: { settings: MemorySettings; onSaved: (s: MemorySettings) => void }) {
  const t = useT();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const toggle = async (enabled: boolean) => {
    setBusy(true);
    setError(undefined);
    try {
      onSaved(await api.setMemorySettings({ enabled, summary: settings.summary ?? null }));
    } catch (e) {
      const key = enabled ? "settings.memorySettings.turnOnFailed" : "settings.memorySettings.turnOffFailed";
      setError(t(key, { error: errorMessage(e) }));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="memory-switch">
      <Switch checked={settings.enabled} onChange={(on) => void toggle(on)} label={t("settings.memorySettings.switch")} busy={busy} />
      <p className="memory-switch-text" data-testid="memory-switch-text">
        {settings.enabled ? t("settings.memorySettings.on") : t("settings.memorySettings.off")}
      </p>
      <FormError error={error} />
    </div>
  );
}

/** The summary of the person's context, edited here and saved with its button. */
export function SummaryForm({ settings, onSaved }: { settings: MemorySettings; onSaved: (s: MemorySettings) => void }) {
  const t = useT();
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
        <span>{t("settings.memorySettings.summary")}</span>
        <textarea
          rows={3}
          value={text}
          placeholder={t("settings.memorySettings.summaryPlaceholder")}
          onChange={(e) => {
            setDraft(e.target.value);
            setDone(false);
          }}
        />
      </label>
      <p className="muted small">{t("settings.memorySettings.summaryHint")}</p>
      <FormError error={error} testId="memory-summary-error" />
      <div className="form-actions">
        {done && (
          <span className="muted small" role="status">
            {t("settings.memorySettings.saved")}
          </span>
        )}
        <button type="submit" className="btn btn-sm btn-primary" disabled={busy || text === saved}>
          {busy ? t("settings.common.saving") : t("settings.memorySettings.saveSummary")}
        </button>
      </div>
    </form>
  );
}
