// Named aliases of the generated OpenAPI types (`npm run gen:api` regenerates schema.d.ts).
import type { components } from "./schema";
import type { Message } from "../lib/messages";

type Schemas = components["schemas"];

export type ArchivePreview = Schemas["ArchivePreview"];
export type Artifact = Schemas["Artifact"];
export type ArtifactList = Schemas["ArtifactList"];
export type ErrorEnvelope = Schemas["ErrorEnvelope"];
export type Health = Schemas["Health"];
export type InstallFinding = Schemas["InstallFinding"];
export type InstallFromThread = Schemas["InstallFromThread"];
export type InstallResult = Schemas["InstallResult"];
export type ModelInfo = Schemas["ModelInfo"];
export type ModelList = Schemas["ModelList"];
export type Run = Schemas["Run"];
export type SearchThreads = Schemas["SearchThreads"];
export type SetSkillEnabled = Schemas["SetSkillEnabled"];
export type Skill = Schemas["Skill"];
export type SkillCategory = Schemas["SkillCategory"];
export type SkillDetail = Schemas["SkillDetail"];
export type SkillList = Schemas["SkillList"];
export type UploadList = Schemas["UploadList"];

/** The agent's state values (`values` of a thread, a state, or a `values` event). The OpenAPI
 * document types them as a free-form object; this is their documented shape. */
export interface ThreadValues {
  messages?: Message[];
  title?: string | null;
  artifacts?: string[];
}

export type Thread = Omit<Schemas["Thread"], "values"> & { values: ThreadValues };
export type ThreadState = Omit<Schemas["ThreadState"], "values"> & { values: ThreadValues };

/** What the sidebar shows for a thread. */
export function threadTitle(thread: Pick<Thread, "metadata" | "values">): string {
  const fromMeta = thread.metadata["title"];
  if (typeof fromMeta === "string" && fromMeta.trim()) return fromMeta.trim();
  const fromValues = thread.values.title;
  if (typeof fromValues === "string" && fromValues.trim()) return fromValues.trim();
  return "New chat";
}
