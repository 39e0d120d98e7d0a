// First run: the admin account, created with the token of the setup URL.
import { useState } from "react";
import { api } from "../api/client";
import { Field, FormError, PasswordField, useFormAction } from "../components/Form";
import { useT } from "../i18n";

export function SetupPage({ token, onDone }: { token: string; onDone: () => void }) {
  const t = useT();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const { busy, error, setError, submit } = useFormAction();
  const create = submit(async () => {
    if (password !== confirm) {
      setError(t("auth.setup.mismatch"));
      return;
    }
    await api.setup(token, email, password);
    // The token is spent: keep it out of the address bar and history.
    window.history.replaceState(null, "", "/");
    onDone();
  });
  return (
    <main className="auth-page" id="main">
      <form className="auth-card" onSubmit={create} aria-labelledby="setup-title">
        <h1 id="setup-title">{t("auth.setup.title")}</h1>
        <p className="muted">{t("auth.setup.intro")}</p>
        <Field label={t("auth.email")} type="email" autoComplete="username" required value={email} onValue={setEmail} />
        <PasswordField label={t("auth.setup.newPassword")} value={password} onValue={setPassword} fresh />
        <PasswordField label={t("auth.setup.repeatPassword")} value={confirm} onValue={setConfirm} fresh />
        <FormError error={error} />
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? t("auth.setup.creating") : t("auth.setup.submit")}
        </button>
      </form>
    </main>
  );
}
