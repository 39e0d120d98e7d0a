import { describe, expect, it } from "vitest";
import type { Skill } from "../api/types";
import { matchingCommands, slashCommandsOf } from "./slashCommands";

const skill = (name: string, extra: Partial<Skill> = {}): Skill => ({
  name,
  description: `${name} does things`,
  metadata: {},
  allowed_tools: [],
  category: "public",
  relative_path: name,
  enabled: true,
  editable: false,
  shadowed: false,
  location: `/mnt/skills/public/${name}/SKILL.md`,
  warnings: [],
  warning_details: [],
  disable_model_invocation: false,
  user_invocable: true,
  ...extra,
});

describe("slash commands", () => {
  it("offers enabled, unshadowed, user-invocable skills, model-hidden ones included", () => {
    const commands = slashCommandsOf([
      skill("pdf", { argument_hint: "<file>" }),
      skill("off", { enabled: false }),
      skill("hidden", { shadowed: true }),
      skill("model-only", { user_invocable: false }),
      skill("by-hand", { disable_model_invocation: true }),
    ]);
    expect(commands.map((c) => c.name)).toEqual(["by-hand", "pdf"]);
    expect(commands[1]?.argumentHint).toBe("<file>");
  });

  it("matches the typed name, prefixes first, and closes once arguments start", () => {
    const commands = slashCommandsOf([skill("csv-insights"), skill("pdf"), skill("insights-pdf")]);
    expect(matchingCommands("/", commands).map((c) => c.name)).toEqual(["csv-insights", "insights-pdf", "pdf"]);
    expect(matchingCommands("/ins", commands).map((c) => c.name)).toEqual(["insights-pdf", "csv-insights"]);
    expect(matchingCommands("/pdf merge", commands)).toEqual([]);
    expect(matchingCommands("hello /pdf", commands)).toEqual([]);
  });
});
