// Slash commands: the skills a person may activate with `/name arguments`.
import { useEffect, useState } from "react";
import { api } from "../api/client";
import type { Skill } from "../api/types";

export interface SlashCommand {
  name: string;
  description: string;
  argumentHint?: string;
}

/** The skills offered as slash commands: enabled, not shadowed, user-invocable. */
export function slashCommandsOf(skills: Skill[]): SlashCommand[] {
  return skills
    .filter((s) => s.enabled && !s.shadowed && s.user_invocable !== false)
    .map((s) => ({
      name: s.name,
      description: s.description,
      ...(s.argument_hint ? { argumentHint: s.argument_hint } : {}),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The commands matching what is typed after `/` (none once a space follows the name). */
export function matchingCommands(text: string, commands: SlashCommand[], limit = 8): SlashCommand[] {
  if (!text.startsWith("/") || /\s/.test(text)) return [];
  const typed = text.slice(1).toLowerCase();
  const starts = commands.filter((c) => c.name.toLowerCase().startsWith(typed));
  const contains = commands.filter((c) => !c.name.toLowerCase().startsWith(typed) && c.name.toLowerCase().includes(typed));
  return [...starts, ...contains].slice(0, limit);
}

/** Loads the slash commands once per mount; a failure leaves the menu empty. */
export function useSlashCommands(): SlashCommand[] {
  const [commands, setCommands] = useState<SlashCommand[]>([]);
  useEffect(() => {
    let live = true;
    api
      .skills()
      .then((list) => live && setCommands(slashCommandsOf(list.skills)))
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, []);
  return commands;
}
