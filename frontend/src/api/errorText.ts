// Server errors for people in the UI's language. The server answers in English with a stable
// code (`{"error": {"code", "message"}}`); in English the server's message is shown as it is
// (it names the thing concerned), in another language the catalogue's `errors.<code>` when it
// has one (with the server's message as `{{message}}` for the codes whose detail matters),
// else the server's message.
import { currentLanguage, i18next, t } from "../i18n";

/** Whether the catalogues have a text (not a group of texts) under `key`. */
const hasText = (key: string): boolean => typeof i18next.getResource("en", "translation", key) === "string";

/** The text of an error with `code` and the server's English `message`. */
export function errorText(code: string, message: string): string {
  const key = `errors.${code}`;
  if (!/^[a-z][a-z0-9_]*$/.test(code) || !hasText(key)) return message || t("errors.unknown");
  if (currentLanguage() === "en" && message) return message;
  return t(key, { message });
}

/** The text of a run's `error` event (`error`: its kind, such as `TimeoutError`). */
export function runErrorText(kind: unknown, message: unknown): string {
  const text = typeof message === "string" ? message : "";
  const key = typeof kind === "string" && /^[A-Za-z]+$/.test(kind) ? `errors.run.${kind}` : "";
  if (!key || !hasText(key)) return text || t("errors.run.failed");
  if (currentLanguage() === "en" && text) return text;
  return t(key, { message: text });
}
