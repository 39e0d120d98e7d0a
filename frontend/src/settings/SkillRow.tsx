import type { Skill } from "../api/types";
import { Icon } from "../components/Icon";
import { Switch } from "../components/Switch";
import { useT } from "../i18n";

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
  const t = useT();
  return (
    <li className={`skill-row ${highlighted ? "highlight" : ""}`} data-testid="skill-row" data-skill={skill.name}>
      <div className="skill-main">
        <div className="skill-name-line">
          <button type="button" className="link-button skill-name" onClick={onDetails}>
            {skill.name}
          </button>
          <span className={`badge badge-${skill.category}`}>{t(`settings.skills.category.${skill.category}`, { defaultValue: skill.category })}</span>
          {skill.warnings.length > 0 && (
            <span className="badge badge-warn" title={skill.warning_details.map((w) => `${w.code}: ${w.message}`).join("\n")} data-testid="warnings-badge">
              <Icon name="alert" size={12} /> {t("settings.skillRow.warnings", { count: skill.warnings.length })}
            </span>
          )}
          {skill.shadowed && (
            <span className="badge" title={t("settings.skillRow.shadowedTitle")}>
              {t("settings.skillRow.shadowed")}
            </span>
          )}
          {skill.disable_model_invocation && (
            <span className="badge" title={t("settings.skillRow.slashTitle")} data-testid="slash-only">
              {t("settings.skillRow.slashOnly")}
            </span>
          )}
          {skill.user_invocable !== false && skill.enabled && !skill.shadowed && (
            <code className="skill-command" title={t("settings.skillRow.commandTitle")}>
              /{skill.name}
              {skill.argument_hint ? ` ${skill.argument_hint}` : ""}
            </code>
          )}
        </div>
        <p className="skill-desc">{skill.description}</p>
      </div>
      <div className="skill-actions">
        <button
          type="button"
          className="btn btn-ghost btn-sm"
          onClick={onDetails}
          aria-label={t("settings.skillRow.detailsOf", { name: skill.name })}
        >
          {t("settings.skillRow.details")}
        </button>
        {onDelete && !readOnly && (
          <button
            type="button"
            className="btn btn-ghost btn-icon btn-sm"
            onClick={onDelete}
            aria-label={t("settings.common.deleteNamed", { name: skill.name })}
          >
            <Icon name="trash" size={14} />
          </button>
        )}
        <Switch
          checked={skill.enabled}
          onChange={onToggle}
          label={t("settings.common.enableNamed", { name: skill.name })}
          busy={busy}
          disabled={readOnly}
        />
      </div>
    </li>
  );
}
