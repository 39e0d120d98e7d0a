// Typed calls to the Antler API through openapi-fetch: every path, parameter, body and
// response type comes from the generated OpenAPI `paths`, so a server change shows up as a
// type error here. Failures become an `ApiError` carrying the server's error envelope.
import { request } from "./http";
import { call, client } from "./typed";
import type {
  ArchivePreview,
  AssistantCreate,
  AssistantPatch,
  AssistantSearch,
  FactCategory,
  FactCreate,
  FactPatch,
  ImportRequest,
  InstallFromThread,
  MemoryExport,
  MemorySettings,
  Role,
  RunStatus,
  SearchThreads,
  SetSkillEnabled,
  Thread,
  ThreadState,
  SkillCategory,
  SecretPut,
  UserPatch,
} from "./types";

/** Multipart bodies go as they are (the browser sets the boundary). */
const asForm = { bodySerializer: (body: unknown) => body as FormData };

function form(files: Record<string, File | File[] | string>): FormData {
  const body = new FormData();
  for (const [name, value] of Object.entries(files)) {
    for (const v of Array.isArray(value) ? value : [value]) {
      if (typeof v === "string") body.append(name, v);
      else body.append(name, v, v.name);
    }
  }
  return body;
}

export const api = {
  health: () => call(client.GET("/health")),
  models: () => call(client.GET("/api/models")),

  // Without `select` every field is there: the answers are whole threads and states.
  searchThreads: (body: SearchThreads) =>
    call(client.POST("/api/threads/search", { body })).then((threads) => threads as Thread[]),
  createThread: (threadId?: string, metadata?: Record<string, unknown>) =>
    call(client.POST("/api/threads", { body: { thread_id: threadId ?? null, metadata: metadata ?? null } })),
  renameThread: (id: string, title: string) =>
    call(
      client.PATCH("/api/threads/{thread_id}", {
        params: { path: { thread_id: id } },
        body: { metadata: { title } },
      }),
    ),
  deleteThread: (id: string) =>
    call(client.DELETE("/api/threads/{thread_id}", { params: { path: { thread_id: id } } })),
  /** One thread, with its metadata (`assistant_id`: the agent its last run used). */
  thread: (id: string, signal?: AbortSignal) =>
    call(client.GET("/api/threads/{thread_id}", { params: { path: { thread_id: id } }, signal })),
  threadState: (id: string) =>
    call(client.GET("/api/threads/{thread_id}/state", { params: { path: { thread_id: id } } })).then(
      (state) => state as ThreadState,
    ),
  /** The thread's checkpoints, newest first (a tree through `parent_checkpoint`). */
  history: (id: string, limit: number) =>
    call(
      client.POST("/api/threads/{thread_id}/history", {
        params: { path: { thread_id: id } },
        body: { limit },
      }),
    ).then((states) => states as ThreadState[]),
  runs: (id: string, status?: RunStatus) =>
    call(
      client.GET("/api/threads/{thread_id}/runs", {
        params: { path: { thread_id: id }, query: status ? { status } : {} },
      }),
    ),
  /** Stops a run and answers once it has stopped. */
  cancelRun: (threadId: string, runId: string) =>
    call(
      client.POST("/api/threads/{thread_id}/runs/{run_id}/cancel", {
        params: { path: { thread_id: threadId, run_id: runId }, query: { wait: true, action: "interrupt" } },
      }),
    ),

  listUploads: (threadId: string) =>
    call(
      client.GET("/api/threads/{thread_id}/uploads", {
        params: { path: { thread_id: threadId } },
      }),
    ),

  uploadFiles: (threadId: string, files: File[]) =>
    call(
      client.POST("/api/threads/{thread_id}/uploads", {
        params: { path: { thread_id: threadId } },
        // The generated type says `string[]` for binary parts; the form carries the files.
        body: form({ files }) as unknown as { files: string[] },
        ...asForm,
      }),
    ),

  artifacts: (threadId: string, signal?: AbortSignal) =>
    call(
      client.GET("/api/threads/{thread_id}/artifacts", {
        params: { path: { thread_id: threadId } },
        signal,
      }),
    ),
  /** The member list and validation result of a `.skill` artifact (the URL the server gave). */
  archivePreview: (artifactUrl: string, signal?: AbortSignal) =>
    request<ArchivePreview>(`${artifactUrl.replace(/\/$/, "")}/`, { signal }),

  skills: () => call(client.GET("/api/skills")),
  skill: (name: string, category?: SkillCategory, signal?: AbortSignal) =>
    call(
      client.GET("/api/skills/{name}", {
        params: { path: { name }, query: category ? { category } : {} },
        signal,
      }),
    ),
  setSkillEnabled: (name: string, body: SetSkillEnabled) =>
    call(client.PUT("/api/skills/{name}", { params: { path: { name } }, body })),
  reloadSkills: () => call(client.POST("/api/skills/reload")),
  deleteSkill: (name: string, category?: SkillCategory) =>
    call(client.DELETE("/api/skills/{name}", { params: { path: { name }, query: category ? { category } : {} } })),
  /** Previews (no `skills`, not `all`) or imports skills from a Git repository (admins). */
  importSkills: (body: Partial<ImportRequest> & Pick<ImportRequest, "url">) =>
    call(client.POST("/api/skills/import", { body: body as ImportRequest })),
  previewSkillFile: (file: File) =>
    call(
      client.POST("/api/skills/preview", {
        body: form({ file }) as unknown as { file: string },
        ...asForm,
      }),
    ),
  uploadSkill: (
    file: File,
    options: { overwrite?: boolean; enable?: boolean; category?: "custom" | "user" } = {},
  ) =>
    call(
      client.POST("/api/skills/upload", {
        body: form({
          file,
          overwrite: options.overwrite ? "true" : "false",
          enable: options.enable === false ? "false" : "true",
          ...(options.category ? { category: options.category } : {}),
        }) as unknown as { file: string },
        ...asForm,
      }),
    ),
  installFromThread: (body: InstallFromThread) =>
    call(client.POST("/api/skills/install", { body })),

  /** The caller's assistants (custom agents) and the built-in one. */
  searchAssistants: (body: AssistantSearch, signal?: AbortSignal) =>
    call(client.POST("/api/assistants/search", { body, signal })),
  createAssistant: (body: AssistantCreate) => call(client.POST("/api/assistants", { body })),
  /** A new version with the given fields replaced (metadata merged). */
  updateAssistant: (id: string, body: AssistantPatch) =>
    call(client.PATCH("/api/assistants/{assistant_id}", { params: { path: { assistant_id: id } }, body })),
  deleteAssistant: (id: string) =>
    call(client.DELETE("/api/assistants/{assistant_id}", { params: { path: { assistant_id: id } } })),
  /** An assistant's versions, newest first. */
  assistantVersions: (id: string, limit: number, signal?: AbortSignal) =>
    call(
      client.POST("/api/assistants/{assistant_id}/versions", {
        params: { path: { assistant_id: id } },
        body: { limit },
        signal,
      }),
    ),
  /** Makes an earlier version current again. */
  restoreAssistantVersion: (id: string, version: number) =>
    call(
      client.POST("/api/assistants/{assistant_id}/latest", {
        params: { path: { assistant_id: id } },
        body: { version },
      }),
    ),
  /** The graph's JSON Schemas: `context_schema` names the models and tools an agent may use. */
  assistantSchemas: (id: string, signal?: AbortSignal) =>
    call(client.GET("/api/assistants/{assistant_id}/schemas", { params: { path: { assistant_id: id } }, signal })),

  authStatus: () => call(client.GET("/api/auth/status")),
  me: () => call(client.GET("/api/auth/me")),
  signIn: (email: string, password: string) =>
    call(client.POST("/api/auth/login", { body: { email, password } })),
  setup: (token: string, email: string, password: string) =>
    call(client.POST("/api/auth/setup", { body: { token, email, password } })),
  signOut: () => call(client.POST("/api/auth/logout")),
  changePassword: (current: string, next: string) =>
    call(client.POST("/api/auth/password", { body: { current, new: next } })),
  tokens: () => call(client.GET("/api/auth/tokens")),
  createToken: (name: string, expiresInDays?: number) =>
    call(client.POST("/api/auth/tokens", { body: { name, expires_in_days: expiresInDays ?? null } })),
  revokeToken: (id: string) =>
    call(client.DELETE("/api/auth/tokens/{id}", { params: { path: { id } } })),
  users: () => call(client.GET("/api/users")),
  createUser: (email: string, password: string, role: Role) =>
    call(client.POST("/api/users", { body: { email, password, role } })),
  updateUser: (id: string, body: UserPatch) =>
    call(client.PATCH("/api/users/{id}", { params: { path: { id } }, body })),

  /** The stored secrets (admins), never their values. */
  secrets: () => call(client.GET("/api/secrets")),
  /** Stores or changes a secret (admins); a field left out stays as stored. */
  putSecret: (name: string, body: SecretPut) =>
    call(client.PUT("/api/secrets/{name}", { params: { path: { name } }, body })),
  deleteSecret: (name: string) => call(client.DELETE("/api/secrets/{name}", { params: { path: { name } } })),

  /** The MCP servers with their state, tools and call counts (asking starts none). */
  mcpServers: (signal?: AbortSignal) => call(client.GET("/api/mcp/servers", { signal })),
  /** Stops an MCP server and starts it again (admins); answers its status afterwards. */
  restartMcpServer: (name: string) =>
    call(client.POST("/api/mcp/servers/{name}/restart", { params: { path: { name } } })),
  /** The servers' configuration (admins), `env` and `headers` values hidden. */
  mcpConfig: (signal?: AbortSignal) => call(client.GET("/api/mcp/config", { signal })),
  /** Replaces the whole set of servers (admins); an `env`/`headers` value of `null` keeps the current one. */
  putMcpConfig: (servers: Record<string, unknown>) => call(client.PUT("/api/mcp/config", { body: { servers } })),

  /** The caller's remembered facts (ranked by relevance with `q`, else newest first), how
   * many they have, their summary and whether memory is on. */
  memory: (query: { q?: string; category?: FactCategory; limit?: number; offset?: number } = {}, signal?: AbortSignal) =>
    call(client.GET("/api/memory", { params: { query }, signal })),
  /** Remembers a fact the person gives (secret-looking text is refused with a 422). */
  addFact: (body: FactCreate) => call(client.POST("/api/memory/facts", { body })),
  /** Corrects a fact: answers the new version (a new id; the old one becomes its history). */
  updateFact: (id: string, body: FactPatch) =>
    call(client.PATCH("/api/memory/facts/{fact_id}", { params: { path: { fact_id: id } }, body })),
  deleteFact: (id: string) =>
    call(client.DELETE("/api/memory/facts/{fact_id}", { params: { path: { fact_id: id } } })),
  /** Forgets everything remembered about the caller; answers how many facts went. */
  forgetMemory: () => call(client.DELETE("/api/memory", { params: { query: { confirm: true } } })),
  /** Sets memory on or off and the summary (both: an absent summary clears it). */
  setMemorySettings: (body: MemorySettings) => call(client.PUT("/api/memory/settings", { body })),
  exportMemory: () => call(client.GET("/api/memory/export")),
  /** Adds exported facts (and their summary); answers how many were added. */
  importMemory: (body: MemoryExport) => call(client.POST("/api/memory/import", { body })),
};

export function downloadUrl(url: string): string {
  return `${url}${url.includes("?") ? "&" : "?"}download=true`;
}
