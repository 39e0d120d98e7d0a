// First run: the admin account, created with the token of the setup URL.
import { useState, type FormEvent } from "react";
import { api } from "../api/client";
import { errorMessage } from "../api/http";

export function SetupPage({ token, onDone }: { token: string; onDone: () => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (password !== confirm) {
      setError("The passwords do not match.");
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await api.setup(token, email, password);
      // The token is spent: keep it out of the address bar and history.
      window.history.replaceState(null, "", "/");
      onDone();
    } catch (err) {
      setError(errorMessage(err));
      setBusy(false);
    }
  };
  return (
    <main className="auth-page" id="main">
      <form className="auth-card" onSubmit={(e) => void submit(e)} aria-labelledby="setup-title">
        <h1 id="setup-title">Create the admin account</h1>
        <p className="muted">This account manages skills and other accounts. You can add people later in Settings.</p>
        <label className="field">
          <span>Email</span>
          <input type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </label>
        <label className="field">
          <span>Password (at least 8 characters)</span>
          <input
            type="password"
            autoComplete="new-password"
            minLength={8}
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
        <label className="field">
          <span>Repeat the password</span>
          <input
            type="password"
            autoComplete="new-password"
            minLength={8}
            required
            value={confirm}
            onChange={(e) => setConfirm(e.target.value)}
          />
        </label>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? "Creating…" : "Create and sign in"}
        </button>
      </form>
    </main>
  );
}
