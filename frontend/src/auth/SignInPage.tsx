// Sign-in with email and password.
import { useState } from "react";
import { api } from "../api/client";
import { Field, FormError, PasswordField, useFormAction } from "../components/Form";
import { Icon } from "../components/Icon";
import { useT } from "../i18n";

export function SignInPage({ setupRequired, onDone }: { setupRequired: boolean; onDone: () => void }) {
  const t = useT();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const { busy, error, submit } = useFormAction();
  const signIn = submit(async () => {
    await api.signIn(email, password);
    onDone();
  });
  return (
    <main className="auth-page" id="main">
      <form className="auth-card" onSubmit={signIn} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">{t("auth.signIn.title")}</h1>
        {setupRequired && (
          <p className="banner banner-info" role="status">
            <Icon name="info" /> {t("auth.signIn.noAdmin")}
          </p>
        )}
        <Field label={t("auth.email")} type="email" autoComplete="username" required value={email} onValue={setEmail} />
        <PasswordField label={t("auth.password")} value={password} onValue={setPassword} />
        <FormError error={error} testId="sign-in-error" />
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? t("auth.signIn.busy") : t("auth.signIn.submit")}
        </button>
      </form>
    </main>
  );
}
