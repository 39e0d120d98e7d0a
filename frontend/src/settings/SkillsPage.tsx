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
import { Trans } from "react-i18next";
import { useT } from "../i18n";
import { GitImportDialog } from "./GitImportDialog";
import { InstallDialog } from "./InstallDialog";
import { SkillDrawer } from "./SkillDrawer";
import { SkillRow } from "./SkillRow";
import { skillKey, useSkills } from "./useSkills";

/** The tabs, with the catalogue keys of their labels. */
const TABS: { id: SkillCategory; label: string }[] = [
  { id: "public", label: "settings.skills.tab.public" },
  { id: "custom", label: "settings.skills.tab.custom" },
  { id: "user", label: "settings.skills.tab.user" },
];

function tabOf(value: string | null): SkillCategory {
  return value === "custom" || value === "user" ? value : "public";
}

/** The catalogue keys of an empty tab's title. */
const EMPTY_TITLE: Record<SkillCategory, string> = {
  public: "settings.skills.empty.public",
  custom: "settings.skills.empty.custom",
  user: "settings.skills.empty.user",
};

/** The catalogue keys of a tab's list label. */
const LIST_LABEL: Record<SkillCategory, string> = {
  public: "settings.skills.listLabel.public",
  custom: "settings.skills.listLabel.custom",
  user: "settings.skills.listLabel.user",
};

export function matchesQuery(skill: Pick<Skill, "name" | "description">, query: string): boolean {
  const q = query.trim().toLowerCase();
  if (!q) return true;
  return skill.name.toLowerCase().includes(q) || skill.description.toLowerCase().includes(q);
}

export function SkillsPage() {
  const t = useT();
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

  const setTab = (category: SkillCategory) =>
    setParams((p) => {
      p.set("tab", category);
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
    const target = TABS[next];
    if (target) {
      setTab(target.id);
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
    const installed = t(result.replaced ? "settings.skills.installedReplaced" : "settings.skills.installed", {
      name: result.skill.name,
    });
    const warnings = result.warnings.length
      ? ` ${t("settings.skills.warningsSentence", { count: result.warnings.length })}`
      : "";
    toast({ kind: "success", message: installed + warnings });
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
    const list = names.join(t("settings.skills.nameSeparator"));
    toast({ kind: "success", message: t("settings.skills.imported", { names: list, url: result.url }) });
  };

  const confirmDelete = async () => {
    if (!deleting) return;
    setDeleteBusy(true);
    try {
      await api.deleteSkill(deleting.name, deleting.category);
      setData((d) => d && { ...d, skills: d.skills.filter((s) => skillKey(s) !== skillKey(deleting)) });
      toast({ kind: "success", message: t("settings.common.deletedQuoted", { name: deleting.name }) });
      void load();
    } catch (e) {
      toast({ kind: "error", message: t("settings.common.deleteFailed", { error: errorMessage(e) }) });
    } finally {
      setDeleteBusy(false);
      setDeleting(null);
    }
  };

  const doReload = async () => {
    setReloading(true);
    try {
      const list = await reload();
      toast({ kind: "success", message: t("settings.skills.reloaded", { n: list.skills.length }) });
    } catch (e) {
      toast({ kind: "error", message: t("settings.skills.reloadFailed", { error: errorMessage(e) }) });
    } finally {
      setReloading(false);
    }
  };

  return (
    <main id="main" className="page skills-page" {...drop.handlers}>
      <div className="page-head">
        <h1>{t("settings.skills.title")}</h1>
        <div className="page-actions">
          {canManage && (
            <button type="button" className="btn btn-sm" onClick={() => void doReload()} disabled={reloading}>
              <Icon name="refresh" size={14} /> {reloading ? t("settings.skills.reloading") : t("settings.skills.reload")}
            </button>
          )}
          {canManage && (
            <button type="button" className="btn btn-sm" onClick={() => setImportOpen(true)}>
              <Icon name="download" size={14} /> {t("settings.skills.addFromGit")}
            </button>
          )}
          <button type="button" className="btn btn-primary btn-sm" onClick={() => setInstallOpen(true)}>
            <Icon name="upload" size={14} /> {t("settings.skills.installFromFile")}
          </button>
        </div>
      </div>
      {!canManage && (
        <p className="banner banner-info" role="status" data-testid="skills-read-only">
          <Icon name="info" /> {t("settings.skills.readOnly")}
        </p>
      )}
      <p className="muted">
        <Trans t={t} i18nKey="settings.skills.intro" components={{ code: <code /> }} />
      </p>
      {data && data.errors.length > 0 && (
        <div className="banner banner-warn" role="status">
          <Icon name="alert" />
          <div>
            <strong>{t("settings.skills.loadErrors", { count: data.errors.length })}</strong>
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
        <div role="tablist" aria-label={t("settings.skills.tablist")} className="tabs">
          {TABS.map((item, i) => (
            <button
              key={item.id}
              ref={(el) => {
                tabRefs.current[i] = el;
              }}
              type="button"
              role="tab"
              id={`tab-${item.id}`}
              aria-selected={tab === item.id}
              aria-controls={`panel-${item.id}`}
              tabIndex={tab === item.id ? 0 : -1}
              className="tab"
              onClick={() => setTab(item.id)}
              onKeyDown={(e) => onTabKey(e, i)}
            >
              {t(item.label)} <span className="count">{data ? counts[item.id] : "…"}</span>
            </button>
          ))}
        </div>
        <label className="search">
          <Icon name="search" size={14} />
          <span className="visually-hidden">{t("settings.skills.search")}</span>
          <input
            type="search"
            placeholder={t("settings.skills.searchPlaceholder")}
            value={query}
            onChange={(e) => setQuery(e.target.value)}
          />
        </label>
      </div>
      <section role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} className="skills-panel">
        {error && !data && <ErrorState message={error} onRetry={() => void load()} />}
        {!data && !error && <Spinner label={t("settings.skills.loading")} />}
        {data && visible.length === 0 && (
          <EmptyState icon={query ? "search" : "info"} title={query ? t("settings.skills.noMatch") : t(EMPTY_TITLE[tab])}>
            {query ? t("settings.skills.tryAnother") : tab === "public" ? null : t("settings.skills.emptyHint")}
          </EmptyState>
        )}
        {data && visible.length > 0 && (
          <ul className="skill-list" aria-label={t(LIST_LABEL[tab])}>
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
          <Icon name="upload" size={28} /> {t("settings.skills.dropOverlay")}
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
        title={t("settings.skills.deleteTitle")}
        message={t(deleting?.category === "user" ? "settings.skills.deletePersonal" : "settings.skills.deleteCustom", {
          name: deleting?.name ?? "",
        })}
        confirmLabel={t("settings.common.delete")}
        danger
        busy={deleteBusy}
        onConfirm={() => void confirmDelete()}
        onCancel={() => setDeleting(null)}
      />
    </main>
  );
}
