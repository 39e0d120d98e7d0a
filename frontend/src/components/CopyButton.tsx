import { useEffect, useState } from "react";
import { useT } from "../i18n";
import { Icon } from "./Icon";

async function copyText(text: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  // Plain-HTTP pages have no clipboard API: fall back to a hidden textarea.
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.appendChild(area);
  area.select();
  document.execCommand("copy");
  area.remove();
}

export function CopyButton({ text, label: given }: { text: string; label?: string }) {
  const t = useT();
  const label = given ?? t("common.copy");
  const [copied, setCopied] = useState(false);
  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 1500);
    return () => clearTimeout(timer);
  }, [copied]);
  return (
    <button
      type="button"
      className="btn btn-ghost btn-xs"
      onClick={() => {
        copyText(text).then(
          () => setCopied(true),
          () => setCopied(false),
        );
      }}
      aria-label={copied ? t("common.copied") : label}
      title={label}
    >
      <Icon name={copied ? "check" : "copy"} size={14} />
      <span>{copied ? t("common.copied") : label}</span>
    </button>
  );
}
