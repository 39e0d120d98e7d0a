// Named aliases of the generated OpenAPI types (`npm run gen:api` regenerates schema.d.ts).
import { t } from "../i18n";
import type { components } from "./schema";

type Schemas = components["schemas"];

export type ArchivePreview = Schemas["ArchivePreview"];
export type Artifact = Schemas["Artifact"];
export type ArtifactList = Schemas["ArtifactList"];
export type Assistant = Schemas["Assistant"];
export type AssistantCreate = Schemas["AssistantCreate"];
export type AssistantPatch = Schemas["AssistantPatch"];
export type AssistantSchemas = Schemas["AssistantSchemas"];
export type AssistantSearch = Schemas["AssistantSearch"];
export type ErrorEnvelope = Schemas["ErrorEnvelope"];
export type Health = Schemas["Health"];
/** A remembered fact (`/api/memory`). */
export type Fact = Schemas["Fact"];
/** What kind of thing a fact is (the server's one list). */
export type FactCategory = Schemas["FactCategory"];
/** Where a subagent's task stands; the last four are how it ended. */
export type TaskStatus = Schemas["TaskStatus"];
/** What a `task` call's tool message keeps in `artifact.task`. */
export type TaskArtifact = Schemas["TaskArtifact"];
export type MemoryImported = Schemas["MemoryImported"];
export type FactCreate = Schemas["FactCreate"];
export type FactPatch = Schemas["FactPatch"];
export type MemoryExport = Schemas["MemoryExport"];
export type MemoryList = Schemas["MemoryList"];
export type MemorySettings = Schemas["MemorySettingsBody"];
export type ImportCandidate = Schemas["ImportCandidate"];
export type ImportRequest = Schemas["ImportRequest"];
export type ImportResult = Schemas["ImportResult"];
export type InstallFinding = Schemas["InstallFinding"];
export type InstallFromThread = Schemas["InstallFromThread"];
export type InstallResult = Schemas["InstallResult"];
export type McpServers = Schemas["McpServers"];
/** `GET /api/mcp/config`: every server's configuration, secrets hidden. */
export type McpConfigView = Schemas["McpConfigView"];
export type SecretInfo = Schemas["SecretInfo"];
export type SecretList = Schemas["SecretList"];
export type SecretPut = Schemas["SecretPut"];
/** One server's configuration as `GET /api/mcp/config` shows it. */
export type McpServerConfigView = Schemas["ServerConfigView"];
/** An `env` or `headers` value as shown: only the variables it names. */
export type HiddenValue = Schemas["HiddenValue"];
/** An MCP server as `GET /api/mcp/servers` shows it. */
export type McpServer = Schemas["ServerStatus"];
export type McpServerState = Schemas["ServerState"];
/** A tool of an MCP server: its MCP name and the name the model calls it by. */
export type McpTool = Schemas["ToolView"];
export type McpTransport = Schemas["Transport"];
export type ModelInfo = Schemas["ModelInfo"];
export type ModelList = Schemas["ModelList"];
export type Run = Schemas["Run"];
export type RunStatus = Schemas["RunStatus"];
export type SearchThreads = Schemas["SearchThreads"];
export type SetSkillEnabled = Schemas["SetSkillEnabled"];
export type Skill = Schemas["Skill"];
export type SkillCategory = Schemas["SkillCategory"];
export type SkillDetail = Schemas["SkillDetail"];
export type SkillList = Schemas["SkillList"];
export type UploadList = Schemas["UploadList"];

export type ThreadValues = Schemas["ThreadValues"];
/** One item of plan mode's checklist (`values.todos`). */
export type Todo = Schemas["Todo"];
export type TodoStatus = Schemas["TodoStatus"];
export type Thread = Schemas["Thread"];
export type ThreadState = Schemas["ThreadState"];
export type CustomEvent = Schemas["CustomEvent"];
export type RunFailure = Schemas["RunFailure"];
export type RunMetadata = Schemas["RunMetadata"];
/** What a run (or a subagent's) used: tokens and model calls. */
export type RunUsage = Schemas["RunUsage"];
/** The earliest messages of a conversation, summarized for the model (`values.summary`). */
export type Summary = Schemas["Summary"];

/** What the sidebar shows for a thread. */
export function threadTitle(thread: Pick<Thread, "metadata" | "values">): string {
  const fromMeta = thread.metadata["title"];
  if (typeof fromMeta === "string" && fromMeta.trim()) return fromMeta.trim();
  const fromValues = thread.values.title;
  if (typeof fromValues === "string" && fromValues.trim()) return fromValues.trim();
  return t("lib.newChat");
}

export type AuthStatus = Schemas["AuthStatus"];
export type Me = Schemas["Me"];
export type Role = Schemas["Role"];
export type SessionInfo = Schemas["SessionInfo"];
export type TokenInfo = Schemas["TokenInfo"];
export type CreatedToken = Schemas["CreatedToken"];
export type UserInfo = Schemas["UserInfo"];
export type UserPatch = Schemas["UserPatch"];
