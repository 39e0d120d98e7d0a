// Sign-in with email and password.
import { useState } from "react";
import { api } from "../api/client";
import { Field, FormError, PasswordField, useFormAction } from "../components/Form";
import { Icon } from "../components/Icon";

export function SignInPage({ setupRequired, onDone }: { setupRequired: boolean; onDone: () => void }) {
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
        <h1 id="sign-in-title">Sign in to Antler</h1>
        {setupRequired && (
          <p className="banner banner-info" role="status">
            <Icon name="info" /> No admin exists yet. Open the setup link the server printed when it started.
          </p>
        )}
        <Field label="Email" type="email" autoComplete="username" required value={email} onValue={setEmail} />
        <PasswordField label="Password" value={password} onValue={setPassword} />
        <FormError error={error} testId="sign-in-error" />
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
