import { useEffect, useState } from "react";
import { useT } from "../i18n";
import { applyTheme, loadThemePref, nextTheme, type ThemePref } from "../lib/theme";
import { Icon } from "./Icon";

export function ThemeToggle() {
  const t = useT();
  const [pref, setPref] = useState<ThemePref>(loadThemePref);
  const [resolved, setResolved] = useState(() => applyTheme(pref));
  useEffect(() => {
    setResolved(applyTheme(pref));
    if (pref !== "system") return;
    const mq = window.matchMedia?.("(prefers-color-scheme: dark)");
    if (!mq) return;
    const onChange = () => setResolved(applyTheme("system"));
    mq.addEventListener("change", onChange);
    return () => mq.removeEventListener("change", onChange);
  }, [pref]);
  const name = (p: ThemePref) => t(`shell.theme.names.${p}`);
  const label = t(pref === "system" ? "shell.theme.labelSystem" : "shell.theme.label", {
    pref: name(pref),
    resolved: name(resolved),
    next: name(nextTheme(pref)),
  });
  return (
    <button
      type="button"
      className="btn btn-ghost btn-icon"
      onClick={() => setPref(nextTheme(pref))}
      aria-label={label}
      title={label}
      data-testid="theme-toggle"
      data-theme-pref={pref}
    >
      <Icon name={pref === "system" ? "monitor" : pref === "light" ? "sun" : "moon"} />
    </button>
  );
}
