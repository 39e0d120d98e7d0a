// The model's reasoning above its answer: folded by default ("Thinking…" while it streams,
// then "Reasoning"), opened with a click or Enter/Space on the summary.
import { formatTokens } from "../lib/usage";

export function Reasoning({ text, streaming, tokens }: { text: string; streaming: boolean; tokens?: number | undefined }) {
  return (
    <details className="reasoning" data-testid="reasoning">
      <summary>
        {streaming ? "Thinking…" : "Reasoning"}
        {!streaming && tokens ? <span className="reasoning-tokens"> · {formatTokens(tokens)} tokens</span> : null}
      </summary>
      <div className="reasoning-text">{text}</div>
    </details>
  );
}
