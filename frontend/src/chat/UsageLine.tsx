// Under a finished answer: what its model calls used ("1.2k in · 0 cached · 350 out ·
// $0.0042"); every figure in the tooltip, which keyboard users reach with Tab.
import { useT } from "../i18n";
import { type Usage, usageDetails, usageSummary } from "../lib/usage";

export function UsageLine({ usage }: { usage: Usage }) {
  const t = useT();
  const details = usageDetails(usage);
  return (
    <p className="usage-line" data-testid="usage-line" title={details} tabIndex={0} role="note" aria-label={t("chat.usage.label", { details: details.replace(/\n/g, "; ") })}>
      {usageSummary(usage)}
    </p>
  );
}
