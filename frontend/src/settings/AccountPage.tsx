// Settings → Account: the password and personal access tokens of the signed-in person.
import { useState } from "react";
import { api } from "../api/client";
import { errorMessage } from "../api/http";
import type { CreatedToken } from "../api/types";
import { useAuth } from "../auth/auth";
import { CopyButton } from "../components/CopyButton";
import { Field, FormError, PasswordField, useFormAction } from "../components/Form";
import { ErrorState, Spinner } from "../components/States";
import { useToast } from "../components/Toasts";
import { Trans } from "react-i18next";
import { useT } from "../i18n";
import { formatLocale } from "../lib/format";
import { useResource } from "../lib/useResource";
import { LanguageSetting } from "./LanguageSetting";
import { SuggestionsSetting } from "./SuggestionsSetting";

function PasswordForm() {
  const t = useT();
  const toast = useToast();
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const { busy, error, submit } = useFormAction();
  const change = submit(async () => {
    await api.changePassword(current, next);
    setCurrent("");
    setNext("");
    toast({ kind: "success", message: t("settings.account.passwordChanged") });
  });
  return (
    <form className="settings-form" onSubmit={change} aria-labelledby="password-title">
      <h2 id="password-title">{t("settings.account.passwordTitle")}</h2>
      <PasswordField label={t("settings.account.currentPassword")} value={current} onValue={setCurrent} />
      <PasswordField label={t("settings.account.newPassword")} value={next} onValue={setNext} fresh />
      <FormError error={error} />
      <button type="submit" className="btn btn-primary btn-sm" disabled={busy}>
        {t("settings.account.changePassword")}
      </button>
    </form>
  );
}

/** A day in the interface's language. */
function dateOf(iso: string): string {
  return new Date(iso).toLocaleDateString(formatLocale());
}

function Tokens() {
  const t = useT();
  const { data, error, reload } = useResource("tokens", () => api.tokens());
  const [name, setName] = useState("");
  const [created, setCreated] = useState<CreatedToken>();
  const { busy, error: problem, setError: setProblem, submit } = useFormAction();
  const create = submit(async () => {
    setCreated(await api.createToken(name));
    setName("");
    reload();
  });
  const revoke = async (id: string) => {
    try {
      await api.revokeToken(id);
    } catch (err) {
      setProblem(errorMessage(err));
    }
    reload();
  };
  return (
    <section className="settings-form" aria-labelledby="tokens-title">
      <h2 id="tokens-title">{t("settings.account.tokensTitle")}</h2>
      <p className="muted small">
        <Trans t={t} i18nKey="settings.account.tokensHint" components={{ code: <code /> }} />
      </p>
      <form className="inline-form" onSubmit={create}>
        <Field
          label={t("settings.common.name")}
          required
          maxLength={100}
          value={name}
          onValue={setName}
          placeholder={t("settings.account.tokenNamePlaceholder")}
        />
        <button type="submit" className="btn btn-sm" disabled={busy}>
          {t("settings.account.createToken")}
        </button>
      </form>
      {created && (
        <div className="banner banner-info" role="status" data-testid="new-token">
          <span>
            {t("settings.account.copyNow")} <code>{created.token}</code>
          </span>
          <CopyButton text={created.token} />
        </div>
      )}
      <FormError error={problem} />
      {error && <ErrorState message={error} onRetry={reload} />}
      {!data && !error && <Spinner />}
      {data && (
        <ul className="plain-list">
          {data.length === 0 && <li className="muted">{t("settings.account.noTokens")}</li>}
          {data.map((token) => (
            <li key={token.id}>
              <span>{token.name}</span>
              <span className="muted small">
                {t("settings.account.tokenCreated", { date: dateOf(token.created_at) })}
                {token.expires_at ? t("settings.account.tokenExpires", { date: dateOf(token.expires_at) }) : ""}
              </span>
              <button type="button" className="btn btn-xs btn-danger" onClick={() => void revoke(token.id)}>
                {t("settings.account.revoke")}
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function AccountPage() {
  const t = useT();
  const { me } = useAuth();
  return (
    <main className="page settings-page" id="main">
      <div className="page-head">
        <h1>{t("settings.account.title")}</h1>
        <span className="muted">
          {me.email} · {t(`settings.roles.${me.role}`)}
        </span>
      </div>
      <LanguageSetting />
      <SuggestionsSetting />
      <PasswordForm />
      <Tokens />
    </main>
  );
}
