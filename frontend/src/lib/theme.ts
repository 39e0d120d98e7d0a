// Light, dark, or follow the system (prefers-color-scheme). Saved in localStorage.
import { readSetting, writeSetting } from "./storage";

export type ThemePref = "system" | "light" | "dark";
const KEY = "antler-theme";

export function loadThemePref(): ThemePref {
  const v = readSetting(KEY);
  return v === "light" || v === "dark" ? v : "system";
}

export function systemTheme(): "light" | "dark" {
  return window.matchMedia?.("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

export function applyTheme(pref: ThemePref): "light" | "dark" {
  const resolved = pref === "system" ? systemTheme() : pref;
  document.documentElement.dataset.theme = resolved;
  writeSetting(KEY, pref === "system" ? null : pref);
  return resolved;
}

export function nextTheme(pref: ThemePref): ThemePref {
  return pref === "system" ? "light" : pref === "light" ? "dark" : "system";
}
