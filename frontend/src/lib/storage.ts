// Browser settings that survive a reload. Storage can be blocked (private modes, policies):
// then reads find nothing and writes last for this page only.

export function readSetting(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/** Saves `value`, or forgets the key when it is null. */
export function writeSetting(key: string, value: string | null): void {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    // blocked: the setting lasts for this page only
  }
}
