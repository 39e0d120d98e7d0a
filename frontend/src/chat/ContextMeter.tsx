// How full the model's context window will be for the next message: the last answer's
// input and output tokens over the window; not shown when the window is unknown.
import { formatNumber, useT } from "../i18n";
import { formatTokens } from "../lib/usage";

export function ContextMeter({ used, window }: { used: number; window: number | null | undefined }) {
  const t = useT();
  if (!window || window <= 0) return null;
  const share = Math.min(1, Math.max(0, used / window));
  const percent = Math.round(share * 100);
  const tip = t("chat.contextMeter.tip", { used: formatNumber(used), window: formatNumber(window), percent });
  const level = share >= 0.9 ? "full" : share >= 0.7 ? "high" : "ok";
  return (
    <div
      className={`context-meter context-meter-${level}`}
      role="meter"
      aria-label={t("chat.contextMeter.label")}
      aria-valuemin={0}
      aria-valuemax={window}
      aria-valuenow={Math.min(used, window)}
      aria-valuetext={t("chat.contextMeter.value", { percent, used: formatTokens(used), window: formatTokens(window) })}
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
