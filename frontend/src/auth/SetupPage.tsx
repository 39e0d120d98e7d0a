// First run: the admin account, created with the token of the setup URL.
import { useState } from "react";
import { api } from "../api/client";
import { Field, FormError, PasswordField, useFormAction } from "../components/Form";

export function SetupPage({ token, onDone }: { token: string; onDone: () => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const { busy, error, setError, submit } = useFormAction();
  const create = submit(async () => {
    if (password !== confirm) {
      setError("The passwords do not match.");
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
        <h1 id="setup-title">Create the admin account</h1>
        <p className="muted">This account manages skills and other accounts. You can add people later in Settings.</p>
        <Field label="Email" type="email" autoComplete="username" required value={email} onValue={setEmail} />
        <PasswordField label="Password (at least 8 characters)" value={password} onValue={setPassword} fresh />
        <PasswordField label="Repeat the password" value={confirm} onValue={setConfirm} fresh />
        <FormError error={error} />
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? "Creating…" : "Create and sign in"}
        </button>
      </form>
    </main>
  );
}
