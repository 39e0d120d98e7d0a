// An agent's versions, newest first; any earlier one can be made current again.
import { useCallback, useState } from "react";
import { api } from "../api/client";
import { errorMessage } from "../api/http";
import type { Assistant } from "../api/types";
import { Dialog } from "../components/Dialog";
import { ErrorState, Spinner } from "../components/States";
import { useToast } from "../components/Toasts";
import { formatNumber, t as translate, useT } from "../i18n";
import { charCount, countLabel, settingsOf } from "../lib/agents";
import { formatLocale } from "../lib/format";
import { useResource } from "../lib/useResource";

/** Versions listed (the server's page; an agent edited more often shows its latest ones). */
const VERSIONS = 100;

/** What a version is, in a line. */
export function versionSummary(v: Assistant): string {
  const s = settingsOf(v);
  return [
    v.name,
    s.model_name ?? translate("settings.versions.serverDefaultModel"),
    countLabel(s.skills, "skill"),
    countLabel(s.tools, "tool"),
    s.system_prompt
      ? translate("settings.versions.instructionChars", { n: formatNumber(charCount(s.system_prompt)) })
      : translate("settings.versions.noInstructions"),
  ].join(" · ");
}

/** `agent` null: closed. `onRestored` gets the agent as it is after a restore. */
export function AgentVersions({
  agent,
  onClose,
  onRestored,
}: {
  agent: Assistant | null;
  onClose: () => void;
  onRestored: (current: Assistant) => void;
}) {
  const t = useT();
  const toast = useToast();
  const [busy, setBusy] = useState<number | null>(null);
  const id = agent?.assistant_id;
  const load = useCallback(
    (signal: AbortSignal) => (id ? api.assistantVersions(id, VERSIONS, signal) : Promise.resolve([])),
    [id],
  );
  // Keyed by the current version too: a restore loads the list again.
  const { data, error, reload } = useResource(agent ? `${agent.assistant_id}@${agent.version}` : null, load, id ?? null);
  const restore = async (version: number) => {
    if (!agent) return;
    setBusy(version);
    try {
      const current = await api.restoreAssistantVersion(agent.assistant_id, version);
      toast({ kind: "success", message: t("settings.versions.restored", { version, name: current.name }) });
      onRestored(current);
    } catch (e) {
      toast({ kind: "error", message: t("settings.versions.restoreFailed", { error: errorMessage(e) }) });
    } finally {
      setBusy(null);
    }
  };
  return (
    <Dialog open={!!agent} title={t("settings.versions.title", { name: agent?.name ?? "" })} onClose={onClose} className="agent-dialog">
      {error && <ErrorState message={error} onRetry={reload} />}
      {!data && !error && <Spinner label={t("settings.versions.loading")} />}
      {data && (
        <ol className="version-list" aria-label={t("settings.versions.list")}>
          {data.map((v) => {
            const current = v.version === agent?.version;
            return (
              <li key={v.version} data-testid="agent-version">
                <div className="version-main">
                  <div>
                    <strong>{t("settings.versions.version", { version: v.version })}</strong>{" "}
                    {current && <span className="badge badge-ok">{t("settings.versions.current")}</span>}{" "}
                    <span className="muted small">{new Date(v.updated_at).toLocaleString(formatLocale())}</span>
                  </div>
                  <p className="muted small">{versionSummary(v)}</p>
                </div>
                {!current && (
                  <button
                    type="button"
                    className="btn btn-sm"
                    onClick={() => void restore(v.version)}
                    disabled={busy !== null}
                    aria-label={t("settings.versions.restoreLabel", { version: v.version })}
                  >
                    {busy === v.version ? t("settings.versions.restoring") : t("settings.versions.restore")}
                  </button>
                )}
              </li>
            );
          })}
        </ol>
      )}
    </Dialog>
  );
}
