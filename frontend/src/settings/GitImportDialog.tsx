// "Add from Git": fetch a repository, preview the skills in it (and what would refuse each),
// choose some, install them as shared custom skills at exactly the previewed commit.
import { type FormEvent, useEffect, useRef, useState } from "react";
import { api } from "../api/client";
import { ApiError, errorMessage } from "../api/http";
import type { ImportCandidate, ImportResult, InstallFinding } from "../api/types";
import { Findings } from "../components/ArchiveDetails";
import { Dialog } from "../components/Dialog";
import { Icon } from "../components/Icon";
import { ErrorState, Spinner } from "../components/States";
import { Trans } from "react-i18next";
import { useT } from "../i18n";

type Step =
  | { kind: "form" }
  | { kind: "fetching" }
  | { kind: "preview"; result: ImportResult }
  | { kind: "failed"; message: string; findings: InstallFinding[] };

/** The key a candidate is chosen by: its folder, unique within a repository. */
const keyOf = (c: ImportCandidate) => c.path;

export function GitImportDialog({
  open,
  onClose,
  onImported,
}: {
  open: boolean;
  onClose: () => void;
  onImported: (result: ImportResult) => void;
}) {
  const t = useT();
  const [url, setUrl] = useState("");
  const [gitRef, setGitRef] = useState("");
  const [includeHidden, setIncludeHidden] = useState(false);
  const [step, setStep] = useState<Step>({ kind: "form" });
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [overwrite, setOverwrite] = useState(false);
  const [installing, setInstalling] = useState(false);
  const [installError, setInstallError] = useState<{ message: string; findings: InstallFinding[] } | null>(null);
  // A newer preview (or closing) supersedes a slower earlier one.
  const attempt = useRef(0);

  useEffect(() => {
    if (!open) {
      attempt.current++;
      setStep({ kind: "form" });
      setChosen(new Set());
      setOverwrite(false);
      setInstalling(false);
      setInstallError(null);
    }
  }, [open]);

  const preview = async (e: FormEvent) => {
    e.preventDefault();
    if (!url.trim()) return;
    const current = ++attempt.current;
    setStep({ kind: "fetching" });
    setInstallError(null);
    let next: Step;
    try {
      const result = await api.importSkills({
        url: url.trim(),
        include_hidden: includeHidden,
        ...(gitRef.trim() ? { ref: gitRef.trim() } : {}),
      });
      next = { kind: "preview", result };
    } catch (err) {
      next = { kind: "failed", message: errorMessage(err), findings: err instanceof ApiError ? err.findings : [] };
    }
    if (attempt.current !== current) return;
    setStep(next);
    if (next.kind === "preview") {
      setChosen(new Set(next.result.skills.filter((s) => s.installable && !s.exists).map(keyOf)));
    }
  };

  const toggle = (c: ImportCandidate) =>
    setChosen((prev) => {
      const next = new Set(prev);
      if (next.has(keyOf(c))) next.delete(keyOf(c));
      else next.add(keyOf(c));
      return next;
    });

  const result = step.kind === "preview" ? step.result : null;
  const selected = result ? result.skills.filter((s) => chosen.has(keyOf(s))) : [];
  const replacing = selected.filter((s) => s.exists);

  const install = async () => {
    if (!result || selected.length === 0) return;
    setInstalling(true);
    setInstallError(null);
    try {
      const done = await api.importSkills({
        url: url.trim(),
        // Exactly what was previewed, even if the branch moved since.
        ...(result.commit ? { ref: result.commit } : {}),
        include_hidden: includeHidden,
        skills: selected.map(keyOf),
        overwrite,
      });
      onImported(done);
    } catch (err) {
      setInstallError({ message: errorMessage(err), findings: err instanceof ApiError ? err.findings : [] });
    } finally {
      setInstalling(false);
    }
  };

  return (
    <Dialog
      open={open}
      title={t("settings.gitImport.title")}
      onClose={onClose}
      className="install-dialog"
      footer={
        <>
          <button type="button" className="btn" onClick={onClose}>
            {t("settings.common.cancel")}
          </button>
          <button
            type="button"
            className="btn btn-primary"
            disabled={!result || selected.length === 0 || installing || (replacing.length > 0 && !overwrite)}
            onClick={() => void install()}
            data-testid="confirm-import"
          >
            {installing ? t("settings.install.installing") : t("settings.gitImport.install", { count: selected.length })}
          </button>
        </>
      }
    >
      <form className="git-import-form" onSubmit={(e) => void preview(e)}>
        <label className="field">
          {t("settings.gitImport.repository")}
          <input
            type="text"
            required
            placeholder="https://github.com/org/skills.git"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            data-testid="import-url"
            autoComplete="off"
            spellCheck={false}
          />
        </label>
        <div className="git-import-row">
          <label className="field">
            {t("settings.gitImport.ref")}
            <input
              type="text"
              placeholder={t("settings.gitImport.refPlaceholder")}
              value={gitRef}
              onChange={(e) => setGitRef(e.target.value)}
              data-testid="import-ref"
              spellCheck={false}
            />
          </label>
          <label className="git-import-check">
            <input
              type="checkbox"
              checked={includeHidden}
              onChange={(e) => setIncludeHidden(e.target.checked)}
              data-testid="import-hidden"
            />{" "}
            <Trans t={t} i18nKey="settings.gitImport.hidden" components={{ code: <code /> }} />
          </label>
          <button type="submit" className="btn" disabled={!url.trim() || step.kind === "fetching"} data-testid="import-preview">
            <Icon name="search" size={14} /> {t("settings.gitImport.preview")}
          </button>
        </div>
      </form>
      {step.kind === "fetching" && <Spinner label={t("settings.gitImport.fetching")} />}
      {step.kind === "failed" && (
        <div role="alert" data-testid="import-failed">
          <ErrorState message={step.message} />
          <Findings findings={step.findings} />
        </div>
      )}
      {result && (
        <section className="git-import-preview" aria-label={t("settings.gitImport.listLabel")} data-testid="import-preview-list">
          <p className="muted small">
            <Trans
              t={t}
              i18nKey="settings.gitImport.found"
              count={result.skills.length}
              values={{ count: result.skills.length, url: result.url }}
              components={{ code: <code /> }}
            />
            {result.commit && (
              <>
                {" "}
                <Trans
                  t={t}
                  i18nKey="settings.gitImport.at"
                  values={{ commit: result.commit.slice(0, 12) }}
                  components={{ code: <code /> }}
                />
              </>
            )}
            {result.hidden_skipped.length > 0 && !includeHidden && (
              <> · {t("settings.gitImport.notSearched", { list: result.hidden_skipped.join(", ") })}</>
            )}
          </p>
          {result.truncated && <p className="banner banner-warn">{t("settings.gitImport.truncated")}</p>}
          {result.skills.length === 0 && <p>{t("settings.gitImport.noneFound")}</p>}
          <ul className="import-list">
            {result.skills.map((c) => (
              <li key={keyOf(c)} className={c.installable ? "" : "refused"} data-testid="import-candidate">
                <label>
                  <input
                    type="checkbox"
                    checked={chosen.has(keyOf(c))}
                    disabled={!c.installable}
                    onChange={() => toggle(c)}
                    aria-label={t("settings.gitImport.installName", { name: c.name })}
                  />
                  <span className="import-name">{c.name}</span>
                  <code className="muted small">{c.path || "."}</code>
                  {c.exists && <span className="badge">{t("settings.gitImport.installedBadge")}</span>}
                  {!c.installable && <span className="badge badge-error">{t("settings.gitImport.refusedBadge")}</span>}
                </label>
                {c.description && <p className="muted small">{c.description}</p>}
                {!c.installable && <Findings findings={c.findings} title={t("settings.gitImport.whyRefused", { name: c.name })} />}
              </li>
            ))}
          </ul>
          {replacing.length > 0 && (
            <label className="install-conflict" data-testid="import-overwrite">
              <input type="checkbox" checked={overwrite} onChange={(e) => setOverwrite(e.target.checked)} />{" "}
              {t("settings.gitImport.replace", { names: replacing.map((s) => s.name).join(", ") })}
            </label>
          )}
        </section>
      )}
      {installError && (
        <div role="alert">
          <ErrorState message={installError.message} />
          <Findings findings={installError.findings} title={t("settings.gitImport.refused")} />
        </div>
      )}
    </Dialog>
  );
}
