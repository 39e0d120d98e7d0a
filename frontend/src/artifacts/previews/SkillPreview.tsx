// A `.skill` artifact: members, SKILL.md, validation, and one-click install.
import { useCallback, useState } from "react";
import { api } from "../../api/client";
import { ApiError, errorMessage } from "../../api/http";
import type { ArchivePreview, InstallFinding } from "../../api/types";
import { ArchiveSummary, EntryList, Findings } from "../../components/ArchiveDetails";
import { Icon } from "../../components/Icon";
import { ErrorState, Spinner } from "../../components/States";
import { useToast } from "../../components/Toasts";
import { useT } from "../../i18n";
import { useResource } from "../../lib/useResource";
import { useText } from "../useArtifacts";
import { MarkdownDoc } from "./TextPreviews";

type InstallState =
  | { kind: "idle" }
  | { kind: "busy" }
  | { kind: "exists"; message: string }
  | { kind: "failed"; message: string; findings: InstallFinding[] }
  | { kind: "done"; name: string };

function skillMdUrl(url: string, preview: ArchivePreview): string | null {
  const root = preview.skill.root ?? "";
  const member = `${root}SKILL.md`;
  if (!preview.entries.some((e) => e.path === member)) return null;
  return `${url.replace(/\/$/, "")}/${member.split("/").map(encodeURIComponent).join("/")}`;
}

export function SkillPreview({ url, path, threadId }: { url: string; path: string; threadId: string }) {
  const loadPreview = useCallback((signal: AbortSignal) => api.archivePreview(url, signal), [url]);
  const { data: preview, error } = useResource(url, loadPreview);
  // Kept with the archive it is about: choosing another archive starts from "idle".
  const [installOf, setInstallOf] = useState<{ url: string; state: InstallState }>({ url, state: { kind: "idle" } });
  const install: InstallState = installOf.url === url ? installOf.state : { kind: "idle" };
  const setInstall = (state: InstallState) => setInstallOf({ url, state });
  const toast = useToast();
  const t = useT();
  const mdUrl = preview ? skillMdUrl(url, preview) : null;
  const skillMd = useText(mdUrl, !!mdUrl);

  const doInstall = async (overwrite: boolean) => {
    setInstall({ kind: "busy" });
    try {
      const result = await api.installFromThread({ thread_id: threadId, path, overwrite });
      setInstall({ kind: "done", name: result.skill.name });
      toast({
        kind: "success",
        message: t(result.replaced ? "artifacts.skill.installedReplaced" : "artifacts.skill.installed", {
          name: result.skill.name,
        }),
        link: {
          to: `/settings/skills?tab=${result.skill.category}&skill=${encodeURIComponent(result.skill.name)}`,
          label: t("artifacts.skill.viewInSettings"),
        },
      });
    } catch (e) {
      if (e instanceof ApiError && e.code === "skill_exists") setInstall({ kind: "exists", message: e.message });
      else setInstall({ kind: "failed", message: errorMessage(e), findings: e instanceof ApiError ? e.findings : [] });
    }
  };

  if (error) return <ErrorState message={t("artifacts.skill.cannotRead", { error })} />;
  if (!preview) return <Spinner label={t("artifacts.skill.reading")} />;
  return (
    <div className="skill-preview" data-testid="skill-preview">
      <ArchiveSummary preview={preview} />
      <div className="install-bar">
        {install.kind === "done" ? (
          <p className="install-ok" role="status">
            <Icon name="check" /> {t("artifacts.skill.installedEnabled")}
          </p>
        ) : install.kind === "exists" ? (
          <div className="install-conflict" role="alert">
            <p>{install.message}</p>
            <button type="button" className="btn btn-danger" onClick={() => void doInstall(true)}>
              {t("artifacts.skill.replace")}
            </button>
          </div>
        ) : (
          <button
            type="button"
            className="btn btn-primary"
            onClick={() => void doInstall(false)}
            disabled={!preview.skill.valid || install.kind === "busy"}
            data-testid="install-skill"
          >
            <Icon name="download" /> {install.kind === "busy" ? t("artifacts.skill.installing") : t("artifacts.skill.install")}
          </button>
        )}
        {install.kind === "failed" && (
          <div className="error-box" role="alert">
            <Icon name="alert" /> <span>{install.message}</span>
          </div>
        )}
      </div>
      {install.kind === "failed" && <Findings findings={install.findings} title={t("artifacts.skill.installRefused")} />}
      <EntryList preview={preview} />
      <section className="skill-md" aria-label="SKILL.md">
        <h3>SKILL.md</h3>
        {!mdUrl ? (
          <p className="muted">{t("artifacts.skill.noSkillMd")}</p>
        ) : skillMd.loading ? (
          <Spinner label={t("artifacts.skill.loadingSkillMd")} />
        ) : skillMd.error ? (
          <ErrorState message={skillMd.error} />
        ) : (
          <MarkdownDoc text={skillMd.text ?? ""} />
        )}
      </section>
    </div>
  );
}
