// The model's reasoning above its answer: folded by default ("Thinking…" while it streams,
// then "Reasoning"), opened with a click or Enter/Space on the summary.
import { useT } from "../i18n";
import { formatTokens } from "../lib/usage";

export function Reasoning({ text, streaming, tokens }: { text: string; streaming: boolean; tokens?: number | undefined }) {
  const t = useT();
  return (
    <details className="reasoning" data-testid="reasoning">
      <summary>
        {streaming ? t("chat.reasoning.thinking") : t("chat.reasoning.title")}
        {!streaming && tokens ? <span className="reasoning-tokens"> · {t("chat.reasoning.tokens", { tokens: formatTokens(tokens) })}</span> : null}
      </summary>
      <div className="reasoning-text">{text}</div>
    </details>
  );
}
