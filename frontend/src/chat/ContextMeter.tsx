// How full the model's context window will be for the next message: the last answer's
// input and output tokens over the window; not shown when the window is unknown.
import { formatTokens } from "../lib/usage";

export function ContextMeter({ used, window }: { used: number; window: number | null | undefined }) {
  if (!window || window <= 0) return null;
  const share = Math.min(1, Math.max(0, used / window));
  const percent = Math.round(share * 100);
  const tip = `Context window: ${used.toLocaleString("en-US")} of ${window.toLocaleString("en-US")} tokens (${percent}%) — what the last answer read and wrote; the next message adds to it.`;
  const level = share >= 0.9 ? "full" : share >= 0.7 ? "high" : "ok";
  return (
    <div
      className={`context-meter context-meter-${level}`}
      role="meter"
      aria-label="Context window"
      aria-valuemin={0}
      aria-valuemax={window}
      aria-valuenow={Math.min(used, window)}
      aria-valuetext={`${percent}% (${formatTokens(used)} of ${formatTokens(window)} tokens)`}
      title={tip}
      tabIndex={0}
      data-testid="context-meter"
      data-used={used}
    >
      <span className="context-meter-bar" aria-hidden="true">
        <span className="context-meter-fill" style={{ width: `${share * 100}%` }} />
      </span>
      <span className="context-meter-text" aria-hidden="true">
        {percent}%
      </span>
    </div>
  );
}
