// A run refused over a daily usage limit: which limit, and when it resets in the reader's
// local time.
import { Trans } from "react-i18next";
import { Icon } from "../components/Icon";
import { useT } from "../i18n";
import { type UsageLimit, describeLimit, formatResetTime } from "../lib/usageLimit";

export function UsageLimitBanner({ limit }: { limit: UsageLimit }) {
  const t = useT();
  const at = limit.resetsAt ? formatResetTime(limit.resetsAt) : "";
  return (
    <div className="banner banner-warn usage-limit-banner" role="alert" data-testid="usage-limit-banner" title={limit.message}>
      <Icon name="alert" />
      <span>
        <strong>{t("chat.usageLimit.reached")}</strong> {describeLimit(limit)}
        {at && (
          <>
            {" "}
            <Trans
              i18nKey="chat.usageLimit.again"
              values={{ at }}
              components={{ time: <time dateTime={limit.resetsAt} data-testid="usage-limit-reset" /> }}
            />
          </>
        )}
      </span>
    </div>
  );
}
