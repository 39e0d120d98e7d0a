// Install a `.skill` file: pick or drop it, preview its contents and validation, confirm.
import { useEffect, useRef, useState } from "react";
import { api } from "../api/client";
import { ApiError, errorMessage } from "../api/http";
import type { ArchivePreview, InstallFinding, InstallResult } from "../api/types";
import { ArchiveSummary, EntryList, Findings } from "../components/ArchiveDetails";
import { Dialog } from "../components/Dialog";
import { Icon } from "../components/Icon";
import { ErrorState, Spinner } from "../components/States";
import { useFileDrop } from "../hooks/useFileDrop";
import { Trans } from "react-i18next";
import { useT } from "../i18n";
import { formatBytes } from "../lib/format";

type Step =
  | { kind: "pick" }
  | { kind: "previewing" }
  | { kind: "preview"; preview: ArchivePreview }
  | { kind: "preview-failed"; message: string; findings: InstallFinding[] };

type Outcome =
  | { kind: "idle" }
  | { kind: "busy" }
  | { kind: "exists"; message: string }
  | { kind: "refused"; message: string; findings: InstallFinding[] };

export function InstallDialog({
  open,
  initialFile,
  canShare,
  onClose,
  onInstalled,
}: {
  open: boolean;
  initialFile: File | null;
  /** Admins choose between a shared (custom) and a personal install; others install personal skills. */
  canShare: boolean;
  onClose: () => void;
  onInstalled: (result: InstallResult) => void;
}) {
  const t = useT();
  const [file, setFile] = useState<File | null>(null);
  const [forEveryone, setForEveryone] = useState(true);
  const [step, setStep] = useState<Step>({ kind: "pick" });
  const [outcome, setOutcome] = useState<Outcome>({ kind: "idle" });
  const input = useRef<HTMLInputElement>(null);
  // Each pick (or close) supersedes earlier previews: a late answer for another file is dropped.
  const pick = useRef(0);

  const choose = async (f: File) => {
    const current = ++pick.current;
    setFile(f);
    setOutcome({ kind: "idle" });
    setStep({ kind: "previewing" });
    let next: Step;
    try {
      next = { kind: "preview", preview: await api.previewSkillFile(f) };
    } catch (e) {
      next = { kind: "preview-failed", message: errorMessage(e), findings: e instanceof ApiError ? e.findings : [] };
    }
    if (pick.current === current) setStep(next);
  };

  useEffect(() => {
    if (!open) {
      pick.current++;
      setFile(null);
      setStep({ kind: "pick" });
      setOutcome({ kind: "idle" });
    } else if (initialFile) {
      void choose(initialFile);
    }
  }, [open, initialFile]);

  const drop = useFileDrop((files) => {
    const f = files[0];
    if (f) void choose(f);
  });

  const install = async (overwrite: boolean) => {
    if (!file) return;
    setOutcome({ kind: "busy" });
    try {
      const category = canShare && forEveryone ? "custom" : "user";
      const result = await api.uploadSkill(file, { overwrite, enable: true, category });
      setOutcome({ kind: "idle" });
      onInstalled(result);
    } catch (e) {
      if (e instanceof ApiError && e.code === "skill_exists") setOutcome({ kind: "exists", message: e.message });
      else setOutcome({ kind: "refused", message: errorMessage(e), findings: e instanceof ApiError ? e.findings : [] });
    }
  };

  const valid = step.kind === "preview" && step.preview.skill.valid;
  return (
    <Dialog
      open={open}
      title={t("settings.install.title")}
      onClose={onClose}
      className="install-dialog"
      footer={
        <>
          <button type="button" className="btn" onClick={onClose}>
            {t("settings.common.cancel")}
          </button>
          {outcome.kind === "exists" ? (
            <button type="button" className="btn btn-danger" onClick={() => void install(true)} data-testid="replace-existing">
              {t("settings.install.replaceExisting")}
            </button>
          ) : (
            <button
              type="button"
              className="btn btn-primary"
              disabled={!valid || outcome.kind === "busy"}
              onClick={() => void install(false)}
              data-testid="confirm-install"
            >
              {outcome.kind === "busy" ? t("settings.install.installing") : t("settings.install.install")}
            </button>
          )}
        </>
      }
    >
      <div className={`dropzone ${drop.dragging ? "dragging" : ""}`} {...drop.handlers} data-testid="skill-dropzone">
        <Icon name="upload" size={24} />
        <p>
          <Trans
            t={t}
            i18nKey="settings.install.drop"
            components={{
              code: <code />,
              button: <button type="button" className="link-button" onClick={() => input.current?.click()} />,
            }}
          />
        </p>
        <input
          ref={input}
          type="file"
          accept=".skill,.zip,application/zip"
          hidden
          data-testid="skill-file-input"
          onChange={(e) => {
            const f = e.target.files?.[0];
            e.target.value = "";
            if (f) void choose(f);
          }}
        />
        {file && (
          <p className="muted small">
            {file.name} · {formatBytes(file.size)}
          </p>
        )}
      </div>
      {canShare ? (
        <fieldset className="install-scope">
          <legend>{t("settings.install.installFor")}</legend>
          <label>
            <input type="radio" name="scope" checked={forEveryone} onChange={() => setForEveryone(true)} />{" "}
            {t("settings.install.everyone")}
          </label>
          <label>
            <input
              type="radio"
              name="scope"
              checked={!forEveryone}
              onChange={() => setForEveryone(false)}
              data-testid="install-personal"
            />{" "}
            {t("settings.install.onlyMe")}
          </label>
        </fieldset>
      ) : (
        <p className="muted small" data-testid="install-personal-note">
          {t("settings.install.personalNote")}
        </p>
      )}
      {step.kind === "previewing" && <Spinner label={t("settings.install.checking")} />}
      {step.kind === "preview-failed" && (
        <>
          <ErrorState message={step.message} />
          <Findings findings={step.findings} />
        </>
      )}
      {step.kind === "preview" && (
        <div className="install-preview">
          <ArchiveSummary preview={step.preview} />
          <EntryList preview={step.preview} />
        </div>
      )}
      {outcome.kind === "exists" && (
        <div className="install-conflict" role="alert" data-testid="skill-exists">
          <Icon name="alert" /> {outcome.message} {t("settings.install.replaceIt")}
        </div>
      )}
      {outcome.kind === "refused" && (
        <div role="alert">
          <ErrorState message={outcome.message} />
          <Findings findings={outcome.findings} title={t("settings.install.refused")} />
        </div>
      )}
    </Dialog>
  );
}
