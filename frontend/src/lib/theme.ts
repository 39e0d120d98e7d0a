// Light, dark, or follow the system (prefers-color-scheme). Saved in localStorage.

export type ThemePref = "system" | "light" | "dark";
const KEY = "antler-theme";

export function loadThemePref(): ThemePref {
  try {
    const v = localStorage.getItem(KEY);
    return v === "light" || v === "dark" ? v : "system";
  } catch {
    return "system";
  }
}

export function systemTheme(): "light" | "dark" {
  return window.matchMedia?.("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

export function applyTheme(pref: ThemePref): "light" | "dark" {
  const resolved = pref === "system" ? systemTheme() : pref;
  document.documentElement.dataset.theme = resolved;
  try {
    if (pref === "system") localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, pref);
  } catch {
    // private mode: the choice lasts for this page only
  }
  return resolved;
}

export function nextTheme(pref: ThemePref): ThemePref {
  return pref === "system" ? "light" : pref === "light" ? "dark" : "system";
}
