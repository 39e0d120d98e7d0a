// Settings → Secrets (admins): named secrets skills and agents get as environment variables.
// A value is sent once and never shown again; the list shows who gets each one.
import { useState } from "react";
import { api } from "../api/client";
import { errorMessage } from "../api/http";
import type { SecretInfo } from "../api/types";
import { useOptionalAuth } from "../auth/auth";
import { ConfirmDialog } from "../components/Dialog";
import { Field, FormError, useFormAction } from "../components/Form";
import { EmptyState, ErrorState, Spinner } from "../components/States";
import { useToast } from "../components/Toasts";
import { Trans } from "react-i18next";
import { t as translate, useT } from "../i18n";
import { domainsOf } from "../lib/agents";
import { useResource } from "../lib/useResource";

/** What the form holds; `editing` names the secret being changed (its value may stay). */
interface Draft {
  name: string;
  value: string;
  description: string;
  skills: string;
  agents: string;
}

const EMPTY: Draft = { name: "", value: "", description: "", skills: "", agents: "" };

function draftOf(s: SecretInfo): Draft {
  return { name: s.name, value: "", description: s.description, skills: s.skills.join(", "), agents: s.agents.join(", ") };
}

function SecretForm({ editing, onSaved, onCancel }: { editing: SecretInfo | null; onSaved: () => void; onCancel: () => void }) {
  const t = useT();
  const [draft, setDraft] = useState<Draft>(editing ? draftOf(editing) : EMPTY);
  const { busy, error, submit } = useFormAction();
  const set = (key: keyof Draft) => (value: string) => setDraft((d) => ({ ...d, [key]: value }));
  const save = submit(async () => {
    await api.putSecret(draft.name.trim(), {
      ...(draft.value ? { value: draft.value } : {}),
      description: draft.description.trim(),
      skills: domainsOf(draft.skills),
      agents: domainsOf(draft.agents),
    });
    // The value leaves the page as soon as it is stored.
    setDraft(EMPTY);
    onSaved();
  });
  return (
    <form
      className="settings-form"
      onSubmit={save}
      aria-label={editing ? t("settings.secrets.changeLabel", { name: editing.name }) : t("settings.secrets.newLabel")}
    >
      <Field
        label={t("settings.common.name")}
        required
        value={draft.name}
        onValue={set("name")}
        disabled={!!editing}
        placeholder="IMAGE_API_KEY"
        pattern="[A-Za-z_][A-Za-z0-9_]{0,63}"
        title={t("settings.secrets.nameTitle")}
        autoComplete="off"
      />
      <Field
        label={editing ? t("settings.secrets.newValue") : t("settings.secrets.value")}
        type="password"
        required={!editing}
        minLength={8}
        value={draft.value}
        onValue={set("value")}
        autoComplete="new-password"
      />
      <Field
        label={t("settings.common.whatFor")}
        maxLength={500} value={draft.description} onValue={set("description")} autoComplete="off" />
      <Field
        label={t("settings.secrets.skills")}
        value={draft.skills}
        onValue={set("skills")}
        placeholder={t("settings.secrets.skillsPlaceholder")}
        autoComplete="off"
      />
      <Field
        label={t("settings.secrets.agents")}
        value={draft.agents}
        onValue={set("agents")}
        placeholder={t("settings.secrets.agentsPlaceholder")}
        autoComplete="off"
      />
      <div className="form-actions">
        {editing && (
          <button type="button" className="btn btn-sm" onClick={onCancel}>
            {t("settings.common.cancel")}
          </button>
        )}
        <button type="submit" className="btn btn-primary btn-sm" disabled={busy}>
          {editing ? t("settings.secrets.saveChanges") : t("settings.secrets.add")}
        </button>
      </div>
      <FormError error={error} />
    </form>
  );
}

function grantsLabel(s: SecretInfo): string {
  const parts = [];
  if (s.skills.length) parts.push(translate("settings.secrets.grantSkills", { list: s.skills.join(", ") }));
  if (s.agents.length) {
    const list = s.agents.includes("*") ? translate("settings.secrets.everyAgent") : s.agents.join(", ");
    parts.push(translate("settings.secrets.grantAgents", { list }));
  }
  return parts.length ? parts.join(" · ") : translate("settings.secrets.noGrants");
}

export function SecretsPage() {
  const t = useT();
  const auth = useOptionalAuth();
  const isAdmin = !auth || auth.me.role === "admin";
  const { data, error, reload } = useResource("secrets", () => api.secrets());
  const [editing, setEditing] = useState<SecretInfo | null>(null);
  const [deleting, setDeleting] = useState<SecretInfo | null>(null);
  const [deleteBusy, setDeleteBusy] = useState(false);
  const toast = useToast();
  if (!isAdmin) {
    return (
      <main className="page" id="main">
        <EmptyState icon="alert" title={t("settings.secrets.onlyAdmins")} />
      </main>
    );
  }
  const confirmDelete = async () => {
    if (!deleting) return;
    setDeleteBusy(true);
    try {
      await api.deleteSecret(deleting.name);
      toast({ kind: "success", message: t("settings.secrets.deleted", { name: deleting.name }) });
    } catch (err) {
      toast({ kind: "error", message: errorMessage(err) });
    }
    setDeleteBusy(false);
    setDeleting(null);
    reload();
  };
  return (
    <main className="page settings-page" id="main">
      <div className="page-head">
        <h1>{t("settings.secrets.title")}</h1>
      </div>
      <p className="muted">
        <Trans t={t} i18nKey="settings.secrets.intro" components={{ code: <code /> }} />
      </p>
      {data && !data.available && (
        <div className="banner banner-warn" role="status" data-testid="secrets-unavailable">
          <Trans t={t} i18nKey="settings.secrets.noKey" components={{ code: <code /> }} />
        </div>
      )}
      <SecretForm
        key={editing?.name ?? "new"}
        editing={editing}
        onSaved={() => {
          toast({ kind: "success", message: t("settings.secrets.saved") });
          setEditing(null);
          reload();
        }}
        onCancel={() => setEditing(null)}
      />
      {error && <ErrorState message={error} onRetry={reload} />}
      {!data && !error && <Spinner />}
      {data && data.secrets.length === 0 && <EmptyState icon="tool" title={t("settings.secrets.empty")} />}
      {data && data.secrets.length > 0 && (
        <ul className="plain-list" aria-label={t("settings.secrets.list")}>
          {data.secrets.map((s) => (
            <li key={s.name} data-testid="secret-row">
              <code>{s.name}</code>
              {s.description && <span className="muted">{s.description}</span>}
              <span className="muted" data-testid="secret-grants">
                {grantsLabel(s)}
              </span>
              {!s.readable && (
                <span className="badge badge-warn" title={t("settings.secrets.unreadableTitle")}>
                  {t("settings.secrets.unreadable")}
                </span>
              )}
              <span className="row-actions">
                <button type="button" className="btn btn-xs" onClick={() => setEditing(s)}>
                  {t("settings.secrets.change")}
                </button>
                <button type="button" className="btn btn-xs" onClick={() => setDeleting(s)}>
                  {t("settings.common.delete")}
                </button>
              </span>
            </li>
          ))}
        </ul>
      )}
      <ConfirmDialog
        open={deleting !== null}
        title={t("settings.secrets.deleteTitle")}
        message={t("settings.secrets.deleteMessage", { name: deleting?.name ?? "" })}
        confirmLabel={t("settings.common.delete")}
        danger
        busy={deleteBusy}
        onConfirm={() => void confirmDelete()}
        onCancel={() => setDeleting(null)}
      />
    </main>
  );
}
