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
import { useResource } from "../lib/useResource";

function PasswordForm() {
  const toast = useToast();
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const { busy, error, submit } = useFormAction();
  const change = submit(async () => {
    await api.changePassword(current, next);
    setCurrent("");
    setNext("");
    toast({ kind: "success", message: "Password changed. Your other sessions were signed out." });
  });
  return (
    <form className="settings-form" onSubmit={change} aria-labelledby="password-title">
      <h2 id="password-title">Password</h2>
      <PasswordField label="Current password" value={current} onValue={setCurrent} />
      <PasswordField label="New password (at least 8 characters)" value={next} onValue={setNext} fresh />
      <FormError error={error} />
      <button type="submit" className="btn btn-primary btn-sm" disabled={busy}>
        Change password
      </button>
    </form>
  );
}

function Tokens() {
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
      <h2 id="tokens-title">Personal access tokens</h2>
      <p className="muted small">
        For programs and SDKs: send a token as <code>Authorization: Bearer …</code> or <code>X-Api-Key</code>.
      </p>
      <form className="inline-form" onSubmit={create}>
        <Field label="Name" required maxLength={100} value={name} onValue={setName} placeholder="laptop script" />
        <button type="submit" className="btn btn-sm" disabled={busy}>
          Create token
        </button>
      </form>
      {created && (
        <div className="banner banner-info" role="status" data-testid="new-token">
          <span>
            Copy it now, it is not shown again: <code>{created.token}</code>
          </span>
          <CopyButton text={created.token} />
        </div>
      )}
      <FormError error={problem} />
      {error && <ErrorState message={error} onRetry={reload} />}
      {!data && !error && <Spinner />}
      {data && (
        <ul className="plain-list">
          {data.length === 0 && <li className="muted">No tokens.</li>}
          {data.map((t) => (
            <li key={t.id}>
              <span>{t.name}</span>
              <span className="muted small">
                created {new Date(t.created_at).toLocaleDateString()}
                {t.expires_at ? `, expires ${new Date(t.expires_at).toLocaleDateString()}` : ""}
              </span>
              <button type="button" className="btn btn-xs btn-danger" onClick={() => void revoke(t.id)}>
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function AccountPage() {
  const { me } = useAuth();
  return (
    <main className="page settings-page" id="main">
      <div className="page-head">
        <h1>Account</h1>
        <span className="muted">
          {me.email} · {me.role}
        </span>
      </div>
      <PasswordForm />
      <Tokens />
    </main>
  );
}
