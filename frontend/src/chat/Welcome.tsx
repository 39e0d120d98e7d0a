// The empty conversation: what to try.
import { Trans } from "react-i18next";
import { useT } from "../i18n";
import { useAppInfo } from "../state/appInfo";

/** The prompts offered, by their keys under `chat.welcome.suggestions` (the demo model's
 * script matches the English ones). */
export const SUGGESTIONS = ["skill", "csv", "report"] as const;

export function Welcome({ onPick, disabled }: { onPick: (text: string) => void; disabled: boolean }) {
  const { defaultModel } = useAppInfo();
  const t = useT();
  return (
    <div className="welcome" data-testid="welcome">
      <h2>{t("chat.welcome.heading")}</h2>
      <p className="muted">
        <Trans i18nKey="chat.welcome.intro" components={{ code: <code /> }} />
      </p>
      {defaultModel?.demo && (
        <p className="demo-note" role="note">
          <Trans i18nKey="chat.welcome.demoNote" components={{ strong: <strong /> }} />
        </p>
      )}
      <ul className="suggestions">
        {SUGGESTIONS.map((key) => {
          const prompt = t(`chat.welcome.suggestions.${key}`);
          return (
            <li key={key}>
              <button type="button" className="suggestion" onClick={() => onPick(prompt)} disabled={disabled}>
                {prompt}
              </button>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
