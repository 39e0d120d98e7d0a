// Settings → Account: the language of the interface ("follow the browser", or one of the
// catalogues). The choice applies at once and is kept in the browser.
import { useState } from "react";
import { LANGUAGES, type LanguageChoice, languageChoice, setLanguageChoice, useT } from "../i18n";

/** The language select, labelled by its heading; `data-testid="language-select"`. */
export function LanguageSetting() {
  const t = useT();
  const [choice, setChoice] = useState<LanguageChoice>(languageChoice);
  const change = (next: LanguageChoice) => {
    setChoice(next);
    setLanguageChoice(next);
  };
  return (
    <section className="settings-form" aria-labelledby="language-title">
      <h2 id="language-title">{t("common.language")}</h2>
      <p className="muted small" id="language-hint">
        {t("settings.language.hint")}
      </p>
      <select
        value={choice}
        onChange={(e) => change(e.target.value as LanguageChoice)}
        aria-labelledby="language-title"
        aria-describedby="language-hint"
        data-testid="language-select"
      >
        <option value="auto">{t("common.languageAuto")}</option>
        {LANGUAGES.map((lang) => (
          // Each language is named in itself, whatever the interface's language.
          <option key={lang} value={lang} lang={lang}>
            {t(`common.languageNames.${lang}`)}
          </option>
        ))}
      </select>
    </section>
  );
}
