// Settings → Account: the person's switch for follow-up suggestions after answers (kept on
// the server, `PATCH /api/preferences`); said to be unavailable when the server has them off.
import { useEffect, useState } from "react";
import { errorMessage } from "../api/http";
import { call, client } from "../api/typed";
import { FormError } from "../components/Form";
import { Switch } from "../components/Switch";
import { useT } from "../i18n";

interface Preferences {
  suggestions: boolean;
  suggestions_available: boolean;
}

export function SuggestionsSetting() {
  const t = useT();
  const [prefs, setPrefs] = useState<Preferences>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  useEffect(() => {
    let live = true;
    call(client.GET("/api/preferences"))
      .then((p) => live && setPrefs(p))
      .catch((e: unknown) => live && setError(t("suggestions.setting.loadFailed", { error: errorMessage(e) })));
    return () => {
      live = false;
    };
  }, [t]);
  const toggle = async (suggestions: boolean) => {
    setBusy(true);
    setError(undefined);
    try {
      setPrefs(await call(client.PATCH("/api/preferences", { body: { suggestions } })));
    } catch (e) {
      setError(t("suggestions.setting.saveFailed", { error: errorMessage(e) }));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="settings-form" aria-labelledby="suggestions-title" data-testid="suggestions-setting">
      <h2 id="suggestions-title">{t("suggestions.setting.title")}</h2>
      <p className="muted small">{t("suggestions.setting.hint")}</p>
      {prefs && (
        <div className="memory-switch">
          <Switch
            checked={prefs.suggestions}
            onChange={(on) => void toggle(on)}
            label={t("suggestions.setting.switch")}
            disabled={!prefs.suggestions_available}
            busy={busy}
          />
          <p className="memory-switch-text">
            {!prefs.suggestions_available
              ? t("suggestions.setting.unavailable")
              : prefs.suggestions
                ? t("suggestions.setting.on")
                : t("suggestions.setting.off")}
          </p>
        </div>
      )}
      <FormError error={error} />
    </section>
  );
}
