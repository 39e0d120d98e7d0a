// A run refused over a daily usage limit: which limit, and when it resets in the reader's
// local time.
import { Icon } from "../components/Icon";
import { type UsageLimit, describeLimit, formatResetTime } from "../lib/usageLimit";

export function UsageLimitBanner({ limit }: { limit: UsageLimit }) {
  const at = limit.resetsAt ? formatResetTime(limit.resetsAt) : "";
  return (
    <div className="banner banner-warn usage-limit-banner" role="alert" data-testid="usage-limit-banner" title={limit.message}>
      <Icon name="alert" />
      <span>
        <strong>Daily usage limit reached.</strong> {describeLimit(limit)}
        {at && (
          <>
            {" "}
            You can chat again{" "}
            <time dateTime={limit.resetsAt} data-testid="usage-limit-reset">
              {at}
            </time>{" "}
            (local time).
          </>
        )}
      </span>
    </div>
  );
}
