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
    <form className="settings-form" onSubmit={save} aria-label={editing ? `Change ${editing.name}` : "New secret"}>
      <Field
        label="Name"
        required
        value={draft.name}
        onValue={set("name")}
        disabled={!!editing}
        placeholder="IMAGE_API_KEY"
        pattern="[A-Za-z_][A-Za-z0-9_]{0,63}"
        title="The environment variable it becomes: letters, digits and _"
        autoComplete="off"
      />
      <Field
        label={editing ? "New value (empty keeps the stored one)" : "Value"}
        type="password"
        required={!editing}
        minLength={8}
        value={draft.value}
        onValue={set("value")}
        autoComplete="new-password"
      />
      <Field label="What it is for" maxLength={500} value={draft.description} onValue={set("description")} autoComplete="off" />
      <Field
        label="Skills that get it"
        value={draft.skills}
        onValue={set("skills")}
        placeholder="imagegen, pdf (a run that uses one of them)"
        autoComplete="off"
      />
      <Field
        label="Agents that get it"
        value={draft.agents}
        onValue={set("agents")}
        placeholder="agent ids, or * for every agent"
        autoComplete="off"
      />
      <div className="form-actions">
        {editing && (
          <button type="button" className="btn btn-sm" onClick={onCancel}>
            Cancel
          </button>
        )}
        <button type="submit" className="btn btn-primary btn-sm" disabled={busy}>
          {editing ? "Save changes" : "Add secret"}
        </button>
      </div>
      <FormError error={error} />
    </form>
  );
}

function grantsLabel(s: SecretInfo): string {
  const parts = [];
  if (s.skills.length) parts.push(`skills: ${s.skills.join(", ")}`);
  if (s.agents.length) parts.push(`agents: ${s.agents.includes("*") ? "every agent" : s.agents.join(", ")}`);
  return parts.length ? parts.join(" · ") : "no skill or agent gets it yet";
}

export function SecretsPage() {
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
        <EmptyState icon="alert" title="Only admins manage secrets" />
      </main>
    );
  }
  const confirmDelete = async () => {
    if (!deleting) return;
    setDeleteBusy(true);
    try {
      await api.deleteSecret(deleting.name);
      toast({ kind: "success", message: `${deleting.name} deleted.` });
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
        <h1>Secrets</h1>
      </div>
      <p className="muted">
        API keys and tokens for skills and agents. A run gets a secret as an environment variable of its name when its
        agent is listed or it uses a listed skill. Values are never shown again, and wherever one would appear (command
        output, messages, files listed) it reads <code>[secret:NAME]</code>.
      </p>
      {data && !data.available && (
        <div className="banner banner-warn" role="status" data-testid="secrets-unavailable">
          The server has no key for secrets: set <code>ANTLER_SECRETS_KEY</code> (32 bytes, e.g.{" "}
          <code>openssl rand -base64 32</code>) and restart it to store them.
        </div>
      )}
      <SecretForm
        key={editing?.name ?? "new"}
        editing={editing}
        onSaved={() => {
          toast({ kind: "success", message: "Secret saved." });
          setEditing(null);
          reload();
        }}
        onCancel={() => setEditing(null)}
      />
      {error && <ErrorState message={error} onRetry={reload} />}
      {!data && !error && <Spinner />}
      {data && data.secrets.length === 0 && <EmptyState icon="tool" title="No secrets yet" />}
      {data && data.secrets.length > 0 && (
        <ul className="plain-list" aria-label="Secrets">
          {data.secrets.map((s) => (
            <li key={s.name} data-testid="secret-row">
              <code>{s.name}</code>
              {s.description && <span className="muted">{s.description}</span>}
              <span className="muted" data-testid="secret-grants">
                {grantsLabel(s)}
              </span>
              {!s.readable && (
                <span className="badge badge-warn" title="Sealed with another key: runs do not get it; store its value again">
                  not readable
                </span>
              )}
              <span className="row-actions">
                <button type="button" className="btn btn-xs" onClick={() => setEditing(s)}>
                  Change
                </button>
                <button type="button" className="btn btn-xs" onClick={() => setDeleting(s)}>
                  Delete
                </button>
              </span>
            </li>
          ))}
        </ul>
      )}
      <ConfirmDialog
        open={deleting !== null}
        title="Delete secret?"
        message={<>Runs started from now on no longer get {deleting?.name}.</>}
        confirmLabel="Delete"
        danger
        busy={deleteBusy}
        onConfirm={() => void confirmDelete()}
        onCancel={() => setDeleting(null)}
      />
    </main>
  );
}
