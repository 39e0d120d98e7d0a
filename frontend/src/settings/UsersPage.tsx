// Settings → Users (admins): create accounts, disable them, reset their password.
import { useState } from "react";
import { api } from "../api/client";
import { errorMessage } from "../api/http";
import type { Role, UserInfo } from "../api/types";
import { useAuth } from "../auth/auth";
import { Field, FormError, PasswordField, useFormAction } from "../components/Form";
import { EmptyState, ErrorState, Spinner } from "../components/States";
import { useToast } from "../components/Toasts";
import { useResource } from "../lib/useResource";

function NewUserForm({ onCreated }: { onCreated: () => void }) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [role, setRole] = useState<Role>("user");
  const { busy, error, submit } = useFormAction();
  const add = submit(async () => {
    await api.createUser(email, password, role);
    setEmail("");
    setPassword("");
    onCreated();
  });
  return (
    <form className="settings-form inline-form" onSubmit={add} aria-label="New account">
      <Field label="Email" type="email" required value={email} onValue={setEmail} />
      <PasswordField label="Initial password" value={password} onValue={setPassword} fresh />
      <label className="field">
        <span>Role</span>
        <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
          <option value="user">user</option>
          <option value="admin">admin</option>
        </select>
      </label>
      <button type="submit" className="btn btn-primary btn-sm" disabled={busy}>
        Add account
      </button>
      <FormError error={error} />
    </form>
  );
}

function UserRow({ user, self, onChanged }: { user: UserInfo; self: boolean; onChanged: () => void }) {
  const toast = useToast();
  const change = async (body: Parameters<typeof api.updateUser>[1], done: string) => {
    try {
      await api.updateUser(user.id, body);
      toast({ kind: "success", message: done });
    } catch (err) {
      toast({ kind: "error", message: errorMessage(err) });
    }
    onChanged();
  };
  const reset = () => {
    const password = window.prompt(`New password for ${user.email} (at least 8 characters)`);
    if (password) void change({ password }, `Password of ${user.email} reset; their sessions ended.`);
  };
  return (
    <li data-testid="user-row">
      <span>{user.email}</span>
      <span className="badge">{user.role}</span>
      {user.disabled && <span className="badge badge-warn">disabled</span>}
      {!self && (
        <span className="row-actions">
          <button type="button" className="btn btn-xs" onClick={reset}>
            Reset password
          </button>
          <button
            type="button"
            className="btn btn-xs"
            onClick={() =>
              void change({ disabled: !user.disabled }, `${user.email} ${user.disabled ? "enabled" : "disabled"}.`)
            }
          >
            {user.disabled ? "Enable" : "Disable"}
          </button>
        </span>
      )}
    </li>
  );
}

export function UsersPage() {
  const { me } = useAuth();
  const { data, error, reload } = useResource("users", () => api.users());
  if (me.role !== "admin") {
    return (
      <main className="page" id="main">
        <EmptyState icon="alert" title="Only admins manage accounts" />
      </main>
    );
  }
  return (
    <main className="page settings-page" id="main">
      <div className="page-head">
        <h1>Users</h1>
      </div>
      <NewUserForm onCreated={reload} />
      {error && <ErrorState message={error} onRetry={reload} />}
      {!data && !error && <Spinner />}
      {data && (
        <ul className="plain-list">
          {data.map((u) => (
            <UserRow key={u.id} user={u} self={u.id === me.id} onChanged={reload} />
          ))}
        </ul>
      )}
    </main>
  );
}
