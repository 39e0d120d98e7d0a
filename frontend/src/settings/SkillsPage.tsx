// `/settings/skills`: the catalog by category, search, enable/disable, details, install, delete.
import { useCallback, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { useSearchParams } from "react-router-dom";
import { api } from "../api/client";
import { errorMessage } from "../api/http";
import type { ImportResult, InstallResult, Skill, SkillCategory } from "../api/types";
import { ConfirmDialog } from "../components/Dialog";
import { Icon } from "../components/Icon";
import { EmptyState, ErrorState, Spinner } from "../components/States";
import { useToast } from "../components/Toasts";
import { useOptionalAuth } from "../auth/auth";
import { useFileDrop } from "../hooks/useFileDrop";
import { pluralize } from "../lib/format";
import { GitImportDialog } from "./GitImportDialog";
import { InstallDialog } from "./InstallDialog";
import { SkillDrawer } from "./SkillDrawer";
import { SkillRow } from "./SkillRow";
import { skillKey, useSkills } from "./useSkills";

const TABS: { id: SkillCategory; label: string }[] = [
  { id: "public", label: "Public" },
  { id: "custom", label: "Custom" },
  { id: "user", label: "Personal" },
];

function tabOf(value: string | null): SkillCategory {
  return value === "custom" || value === "user" ? value : "public";
}

const EMPTY_TITLE: Record<SkillCategory, string> = {
  public: "No public skills",
  custom: "No custom skills yet",
  user: "No personal skills yet",
};

export function matchesQuery(skill: Pick<Skill, "name" | "description">, query: string): boolean {
  const q = query.trim().toLowerCase();
  if (!q) return true;
  return skill.name.toLowerCase().includes(q) || skill.description.toLowerCase().includes(q);
}

export function SkillsPage() {
  const auth = useOptionalAuth();
  // Outside the sign-in gate (unit tests) everything is shown.
  const canManage = auth ? auth.me.role === "admin" : true;
  const toast = useToast();
  const onError = useCallback((message: string) => toast({ kind: "error", message }), [toast]);
  const { data, error, load, toggle, reload, pending, setData } = useSkills(onError);
  const [params, setParams] = useSearchParams();
  const tab = tabOf(params.get("tab"));
  const highlighted = params.get("skill");
  const [query, setQuery] = useState("");
  const [details, setDetails] = useState<Skill | null>(null);
  const [deleting, setDeleting] = useState<Skill | null>(null);
  const [deleteBusy, setDeleteBusy] = useState(false);
  const [installOpen, setInstallOpen] = useState(false);
  const [importOpen, setImportOpen] = useState(false);
  const [droppedFile, setDroppedFile] = useState<File | null>(null);
  const [reloading, setReloading] = useState(false);
  const tabRefs = useRef<(HTMLButtonElement | null)[]>([]);

  const setTab = (t: SkillCategory) =>
    setParams((p) => {
      p.set("tab", t);
      p.delete("skill");
      return p;
    });

  const counts = useMemo(() => {
    const c = { public: 0, custom: 0, user: 0 };
    for (const s of data?.skills ?? []) c[s.category]++;
    return c;
  }, [data]);
  const visible = useMemo(
    () => (data?.skills ?? []).filter((s) => s.category === tab && matchesQuery(s, query)),
    [data, tab, query],
  );

  const drop = useFileDrop((files) => {
    const f = files[0];
    if (!f) return;
    setDroppedFile(f);
    setInstallOpen(true);
  }, !installOpen);

  const onTabKey = (e: KeyboardEvent, index: number) => {
    const dir = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
    if (!dir) return;
    e.preventDefault();
    const next = (index + dir + TABS.length) % TABS.length;
    const t = TABS[next];
    if (t) {
      setTab(t.id);
      tabRefs.current[next]?.focus();
    }
  };

  const onInstalled = (result: InstallResult) => {
    setInstallOpen(false);
    setDroppedFile(null);
    void load();
    setParams((p) => {
      p.set("tab", result.skill.category);
      p.set("skill", result.skill.name);
      return p;
    });
    toast({
      kind: "success",
      message: `Installed “${result.skill.name}”${result.replaced ? " (replaced the previous version)" : ""}.${
        result.warnings.length ? ` ${pluralize(result.warnings.length, "warning")}.` : ""
      }`,
    });
  };

  const onImported = (result: ImportResult) => {
    setImportOpen(false);
    void load();
    const names = result.installed.map((r) => `“${r.skill.name}”`);
    setParams((p) => {
      p.set("tab", "custom");
      p.delete("skill");
      return p;
    });
    toast({ kind: "success", message: `Imported ${names.join(", ")} from ${result.url}.` });
  };

  const confirmDelete = async () => {
    if (!deleting) return;
    setDeleteBusy(true);
    try {
      await api.deleteSkill(deleting.name, deleting.category);
      setData((d) => d && { ...d, skills: d.skills.filter((s) => skillKey(s) !== skillKey(deleting)) });
      toast({ kind: "success", message: `Deleted “${deleting.name}”.` });
      void load();
    } catch (e) {
      toast({ kind: "error", message: `Delete failed: ${errorMessage(e)}` });
    } finally {
      setDeleteBusy(false);
      setDeleting(null);
    }
  };

  const doReload = async () => {
    setReloading(true);
    try {
      const list = await reload();
      toast({ kind: "success", message: `Reloaded: ${list.skills.length} skills.` });
    } catch (e) {
      toast({ kind: "error", message: `Reload failed: ${errorMessage(e)}` });
    } finally {
      setReloading(false);
    }
  };

  return (
    <main id="main" className="page skills-page" {...drop.handlers}>
      <div className="page-head">
        <h1>Skills</h1>
        <div className="page-actions">
          {canManage && (
            <button type="button" className="btn btn-sm" onClick={() => void doReload()} disabled={reloading}>
              <Icon name="refresh" size={14} /> {reloading ? "Reloading…" : "Reload"}
            </button>
          )}
          {canManage && (
            <button type="button" className="btn btn-sm" onClick={() => setImportOpen(true)}>
              <Icon name="download" size={14} /> Add from Git
            </button>
          )}
          <button type="button" className="btn btn-primary btn-sm" onClick={() => setInstallOpen(true)}>
            <Icon name="upload" size={14} /> Install from file
          </button>
        </div>
      </div>
      {!canManage && (
        <p className="banner banner-info" role="status" data-testid="skills-read-only">
          <Icon name="info" /> Shared skills are managed by admins; you can see which ones the agent is offered. Skills
          you install are personal: only your conversations use them.
        </p>
      )}
      <p className="muted">
        Enabled skills are offered to the agent (name, description and location); it reads a skill’s SKILL.md when a
        request fits. Drop a <code>.skill</code> file anywhere on this page to install it.
      </p>
      {data && data.errors.length > 0 && (
        <div className="banner banner-warn" role="status">
          <Icon name="alert" />
          <div>
            <strong>{pluralize(data.errors.length, "skill")} could not be loaded:</strong>
            <ul>
              {data.errors.map((e) => (
                <li key={e.path}>
                  <code>{e.path}</code>: {e.message}
                </li>
              ))}
            </ul>
          </div>
        </div>
      )}
      <div className="skills-toolbar">
        <div role="tablist" aria-label="Skill category" className="tabs">
          {TABS.map((t, i) => (
            <button
              key={t.id}
              ref={(el) => {
                tabRefs.current[i] = el;
              }}
              type="button"
              role="tab"
              id={`tab-${t.id}`}
              aria-selected={tab === t.id}
              aria-controls={`panel-${t.id}`}
              tabIndex={tab === t.id ? 0 : -1}
              className="tab"
              onClick={() => setTab(t.id)}
              onKeyDown={(e) => onTabKey(e, i)}
            >
              {t.label} <span className="count">{data ? counts[t.id] : "…"}</span>
            </button>
          ))}
        </div>
        <label className="search">
          <Icon name="search" size={14} />
          <span className="visually-hidden">Search skills</span>
          <input type="search" placeholder="Search by name or description" value={query} onChange={(e) => setQuery(e.target.value)} />
        </label>
      </div>
      <section role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} className="skills-panel">
        {error && !data && <ErrorState message={error} onRetry={() => void load()} />}
        {!data && !error && <Spinner label="Loading skills…" />}
        {data && visible.length === 0 && (
          <EmptyState icon={query ? "search" : "info"} title={query ? "No skills match" : EMPTY_TITLE[tab]}>
            {query ? "Try another search." : tab === "public" ? null : "Install one from a .skill file, or ask the agent to create one."}
          </EmptyState>
        )}
        {data && visible.length > 0 && (
          <ul className="skill-list" aria-label={`${tab} skills`}>
            {visible.map((s) => (
              <SkillRow
                key={skillKey(s)}
                skill={s}
                highlighted={highlighted === s.name}
                busy={pending.has(skillKey(s))}
                onToggle={(enabled) => void toggle(s, enabled)}
                readOnly={!canManage && s.category !== "user"}
                onDetails={() => setDetails(s)}
                {...(s.editable ? { onDelete: () => setDeleting(s) } : {})}
              />
            ))}
          </ul>
        )}
      </section>
      {drop.dragging && (
        <div className="drop-overlay" aria-hidden="true">
          <Icon name="upload" size={28} /> Drop a .skill file to install it
        </div>
      )}
      <SkillDrawer skill={details} onClose={() => setDetails(null)} />
      <InstallDialog
        open={installOpen}
        initialFile={droppedFile}
        canShare={canManage}
        onClose={() => {
          setInstallOpen(false);
          setDroppedFile(null);
        }}
        onInstalled={onInstalled}
      />
      <GitImportDialog open={importOpen} onClose={() => setImportOpen(false)} onImported={onImported} />
      <ConfirmDialog
        open={deleting !== null}
        title="Delete skill?"
        message={
          <>
            “{deleting?.name}” will be removed from the {deleting?.category === "user" ? "personal" : "custom"} skills (a
            copy is kept in the history folder).
          </>
        }
        confirmLabel="Delete"
        danger
        busy={deleteBusy}
        onConfirm={() => void confirmDelete()}
        onCancel={() => setDeleting(null)}
      />
    </main>
  );
}
