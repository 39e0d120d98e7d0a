import type { Skill } from "../api/types";
import { Icon } from "../components/Icon";
import { Switch } from "../components/Switch";
import { pluralize } from "../lib/format";

export function SkillRow({
  skill,
  highlighted,
  busy,
  onToggle,
  onDetails,
  onDelete,
  readOnly = false,
}: {
  skill: Skill;
  /** The person may not manage shared skills (not an admin): the switch shows the state only. */
  readOnly?: boolean;
  highlighted: boolean;
  /** A change of this skill is on its way to the server: one at a time. */
  busy: boolean;
  onToggle: (enabled: boolean) => void;
  onDetails: () => void;
  onDelete?: () => void;
}) {
  return (
    <li className={`skill-row ${highlighted ? "highlight" : ""}`} data-testid="skill-row" data-skill={skill.name}>
      <div className="skill-main">
        <div className="skill-name-line">
          <button type="button" className="link-button skill-name" onClick={onDetails}>
            {skill.name}
          </button>
          <span className={`badge badge-${skill.category}`}>{skill.category}</span>
          {skill.warnings.length > 0 && (
            <span className="badge badge-warn" title={skill.warning_details.map((w) => `${w.code}: ${w.message}`).join("\n")} data-testid="warnings-badge">
              <Icon name="alert" size={12} /> {pluralize(skill.warnings.length, "warning")}
            </span>
          )}
          {skill.shadowed && (
            <span className="badge" title="An enabled skill of the same name in a later category (custom, then personal) replaces it for the agent">
              shadowed
            </span>
          )}
          {skill.disable_model_invocation && (
            <span className="badge" title="Not offered to the agent; type /name in a message to use it" data-testid="slash-only">
              slash only
            </span>
          )}
          {skill.user_invocable !== false && skill.enabled && !skill.shadowed && (
            <code className="skill-command" title="Type this at the start of a message to use the skill">
              /{skill.name}
              {skill.argument_hint ? ` ${skill.argument_hint}` : ""}
            </code>
          )}
        </div>
        <p className="skill-desc">{skill.description}</p>
      </div>
      <div className="skill-actions">
        <button type="button" className="btn btn-ghost btn-sm" onClick={onDetails} aria-label={`Details of ${skill.name}`}>
          Details
        </button>
        {onDelete && !readOnly && (
          <button type="button" className="btn btn-ghost btn-icon btn-sm" onClick={onDelete} aria-label={`Delete ${skill.name}`}>
            <Icon name="trash" size={14} />
          </button>
        )}
        <Switch
          checked={skill.enabled}
          onChange={onToggle}
          label={`Enable ${skill.name}`}
          busy={busy}
          disabled={readOnly}
        />
      </div>
    </li>
  );
}
