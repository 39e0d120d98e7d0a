// Settings → Users (admins): create accounts, disable them, reset their password.
import { useState } from "react";
import { api } from "../api/client";
import { errorMessage } from "../api/http";
import type { Role, UserInfo } from "../api/types";
import { useAuth } from "../auth/auth";
import { Field, FormError, PasswordField, useFormAction } from "../components/Form";
import { EmptyState, ErrorState, Spinner } from "../components/States";
import { useToast } from "../components/Toasts";
import { useT } from "../i18n";
import { useResource } from "../lib/useResource";

function NewUserForm({ onCreated }: { onCreated: () => void }) {
  const t = useT();
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
    <form className="settings-form inline-form" onSubmit={add} aria-label={t("settings.users.newAccount")}>
      <Field label={t("settings.users.email")} type="email" required value={email} onValue={setEmail} />
      <PasswordField label={t("settings.users.initialPassword")} value={password} onValue={setPassword} fresh />
      <label className="field">
        <span>{t("settings.users.role")}</span>
        <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
          <option value="user">{t("settings.roles.user")}</option>
          <option value="admin">{t("settings.roles.admin")}</option>
        </select>
      </label>
      <button type="submit" className="btn btn-primary btn-sm" disabled={busy}>
        {t("settings.users.addAccount")}
      </button>
      <FormError error={error} />
    </form>
  );
}

function UserRow({ user, self, onChanged }: { user: UserInfo; self: boolean; onChanged: () => void }) {
  const t = useT();
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
    const password = window.prompt(t("settings.users.resetPrompt", { email: user.email }));
    if (password) void change({ password }, t("settings.users.resetDone", { email: user.email }));
  };
  return (
    <li data-testid="user-row">
      <span>{user.email}</span>
      <span className="badge">{t(`settings.roles.${user.role}`)}</span>
      {user.disabled && <span className="badge badge-warn">{t("settings.users.disabledBadge")}</span>}
      {!self && (
        <span className="row-actions">
          <button type="button" className="btn btn-xs" onClick={reset}>
            {t("settings.users.resetPassword")}
          </button>
          <button
            type="button"
            className="btn btn-xs"
            onClick={() =>
              void change(
                { disabled: !user.disabled },
                t(user.disabled ? "settings.users.enabledDone" : "settings.users.disabledDone", { email: user.email }),
              )
            }
          >
            {user.disabled ? t("settings.common.enable") : t("settings.common.disable")}
          </button>
        </span>
      )}
    </li>
  );
}

export function UsersPage() {
  const t = useT();
  const { me } = useAuth();
  const { data, error, reload } = useResource("users", () => api.users());
  if (me.role !== "admin") {
    return (
      <main className="page" id="main">
        <EmptyState icon="alert" title={t("settings.users.onlyAdmins")} />
      </main>
    );
  }
  return (
    <main className="page settings-page" id="main">
      <div className="page-head">
        <h1>{t("settings.users.title")}</h1>
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
