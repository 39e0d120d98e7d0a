// A skill's details: metadata, the rendered SKILL.md and its files.
import { Fragment, useCallback } from "react";
import { api } from "../api/client";
import type { Skill, SkillDetail } from "../api/types";
import { Dialog } from "../components/Dialog";
import { Markdown } from "../components/Markdown";
import { ErrorState, Spinner } from "../components/States";
import { useT } from "../i18n";
import { formatBytes } from "../lib/format";
import { useResource } from "../lib/useResource";

export function SkillDrawer({ skill, onClose }: { skill: Skill | null; onClose: () => void }) {
  const t = useT();
  const load = useCallback(
    (signal: AbortSignal) => (skill ? api.skill(skill.name, skill.category, signal) : Promise.reject(new Error("no skill"))),
    [skill],
  );
  const { data: detail, error } = useResource<SkillDetail>(skill ? `${skill.category}/${skill.name}` : null, load);
  return (
    <Dialog open={!!skill} title={skill?.name ?? t("settings.skillDrawer.skill")} onClose={onClose} drawer className="skill-drawer">
      {error && <ErrorState message={error} />}
      {!error && !detail && <Spinner label={t("settings.skillDrawer.loading")} />}
      {detail && (
        <div data-testid="skill-detail">
          <p className="skill-desc">{detail.description}</p>
          <dl className="meta-list">
            <dt>{t("settings.common.category")}</dt>
            <dd>{t(`settings.skills.category.${detail.category}`, { defaultValue: detail.category })}</dd>
            <dt>{t("settings.skillDrawer.state")}</dt>
            <dd>
              {detail.enabled ? t("settings.skillDrawer.enabled") : t("settings.skillDrawer.disabled")}
              {detail.shadowed ? t("settings.skillDrawer.shadowed") : ""}
            </dd>
            <dt>{t("settings.skillDrawer.location")}</dt>
            <dd>
              <code>{detail.location}</code>
            </dd>
            {detail.license && (
              <>
                <dt>{t("settings.skillDrawer.license")}</dt>
                <dd>{detail.license}</dd>
              </>
            )}
            {detail.compatibility && (
              <>
                <dt>{t("settings.skillDrawer.compatibility")}</dt>
                <dd>{detail.compatibility}</dd>
              </>
            )}
            {detail.allowed_tools.length > 0 && (
              <>
                <dt>{t("settings.skillDrawer.allowedTools")}</dt>
                <dd>{detail.allowed_tools.join(", ")}</dd>
              </>
            )}
            {Object.entries(detail.metadata).map(([k, v]) => (
              <Fragment key={k}>
                <dt>{k}</dt>
                <dd>{v}</dd>
              </Fragment>
            ))}
          </dl>
          {detail.warning_details.length > 0 && (
            <div className="warnings">
              <h4>{t("settings.skillDrawer.warnings")}</h4>
              <ul>
                {detail.warning_details.map((w, i) => (
                  <li key={i}>
                    <code>{w.code}</code> {w.message}
                  </li>
                ))}
              </ul>
            </div>
          )}
          <h3>SKILL.md</h3>
          <Markdown text={detail.body} />
          <h3>{t("settings.skillDrawer.files")}</h3>
          <ul className="file-list">
            {detail.files.map((f) => (
              <li key={f.path}>
                <code>{f.path}</code> <span className="muted">{formatBytes(f.size)}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
    </Dialog>
  );
}
