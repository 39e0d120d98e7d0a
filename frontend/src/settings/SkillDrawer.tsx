// A skill's details: metadata, the rendered SKILL.md and its files.
import { Fragment, useCallback } from "react";
import { api } from "../api/client";
import type { Skill, SkillDetail } from "../api/types";
import { Dialog } from "../components/Dialog";
import { Markdown } from "../components/Markdown";
import { ErrorState, Spinner } from "../components/States";
import { formatBytes } from "../lib/format";
import { useResource } from "../lib/useResource";

export function SkillDrawer({ skill, onClose }: { skill: Skill | null; onClose: () => void }) {
  const load = useCallback(
    (signal: AbortSignal) => (skill ? api.skill(skill.name, skill.category, signal) : Promise.reject(new Error("no skill"))),
    [skill],
  );
  const { data: detail, error } = useResource<SkillDetail>(skill ? `${skill.category}/${skill.name}` : null, load);
  return (
    <Dialog open={!!skill} title={skill?.name ?? "Skill"} onClose={onClose} drawer className="skill-drawer">
      {error && <ErrorState message={error} />}
      {!error && !detail && <Spinner label="Loading the skill…" />}
      {detail && (
        <div data-testid="skill-detail">
          <p className="skill-desc">{detail.description}</p>
          <dl className="meta-list">
            <dt>Category</dt>
            <dd>{detail.category}</dd>
            <dt>State</dt>
            <dd>{detail.enabled ? "enabled" : "disabled"}{detail.shadowed ? " (shadowed by a custom skill)" : ""}</dd>
            <dt>Location</dt>
            <dd>
              <code>{detail.location}</code>
            </dd>
            {detail.license && (
              <>
                <dt>License</dt>
                <dd>{detail.license}</dd>
              </>
            )}
            {detail.compatibility && (
              <>
                <dt>Compatibility</dt>
                <dd>{detail.compatibility}</dd>
              </>
            )}
            {detail.allowed_tools.length > 0 && (
              <>
                <dt>Allowed tools</dt>
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
              <h4>Warnings</h4>
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
          <h3>Files</h3>
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
