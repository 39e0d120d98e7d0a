// Sign-in with email and password.
import { useState, type FormEvent } from "react";
import { api } from "../api/client";
import { errorMessage } from "../api/http";
import { Icon } from "../components/Icon";

export function SignInPage({ setupRequired, onDone }: { setupRequired: boolean; onDone: () => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await api.signIn(email, password);
      onDone();
    } catch (err) {
      setError(errorMessage(err));
      setBusy(false);
    }
  };
  return (
    <main className="auth-page" id="main">
      <form className="auth-card" onSubmit={(e) => void submit(e)} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Sign in to Antler</h1>
        {setupRequired && (
          <p className="banner banner-info" role="status">
            <Icon name="info" /> No admin exists yet. Open the setup link the server printed when it started.
          </p>
        )}
        <label className="field">
          <span>Email</span>
          <input type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </label>
        <label className="field">
          <span>Password</span>
          <input
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
        {error && (
          <p className="form-error" role="alert" data-testid="sign-in-error">
            {error}
          </p>
        )}
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
