// Typed calls to the Antler API. Request and response types come from the OpenAPI document.
import { request } from "./http";
import type {
  ArchivePreview,
  ArtifactList,
  Health,
  InstallFromThread,
  InstallResult,
  ModelList,
  Run,
  SearchThreads,
  SetSkillEnabled,
  SkillCategory,
  SkillDetail,
  SkillList,
  Thread,
  ThreadState,
  UploadList,
} from "./types";

const enc = encodeURIComponent;

export const api = {
  health: () => request<Health>("/health"),
  models: () => request<ModelList>("/api/models"),

  searchThreads: (body: SearchThreads) =>
    request<Thread[]>("/api/threads/search", { json: body }),
  createThread: (threadId?: string, metadata?: Record<string, unknown>) =>
    request<Thread>("/api/threads", { json: { thread_id: threadId, metadata } }),
  renameThread: (id: string, title: string) =>
    request<Thread>(`/api/threads/${enc(id)}`, { method: "PATCH", json: { metadata: { title } } }),
  deleteThread: (id: string) =>
    request<void>(`/api/threads/${enc(id)}`, { method: "DELETE" }),
  threadState: (id: string) => request<ThreadState>(`/api/threads/${enc(id)}/state`),
  runs: (id: string, status?: string) =>
    request<Run[]>(
      `/api/threads/${enc(id)}/runs${status ? `?status=${enc(status)}` : ""}`,
    ),
  /** Stops a run and answers once it has stopped. */
  cancelRun: (threadId: string, runId: string) =>
    request<Run>(
      `/api/threads/${enc(threadId)}/runs/${enc(runId)}/cancel?wait=1&action=interrupt`,
      { method: "POST" },
    ),

  uploadFiles: (threadId: string, files: File[]) => {
    const form = new FormData();
    for (const f of files) form.append("files", f, f.name);
    return request<UploadList>(`/api/threads/${enc(threadId)}/uploads`, { body: form });
  },

  artifacts: (threadId: string) =>
    request<ArtifactList>(`/api/threads/${enc(threadId)}/artifacts`),
  /** The member list and validation result of a `.skill` artifact. */
  archivePreview: (artifactUrl: string) =>
    request<ArchivePreview>(`${artifactUrl.replace(/\/$/, "")}/`),

  skills: () => request<SkillList>("/api/skills"),
  skill: (name: string, category?: SkillCategory) =>
    request<SkillDetail>(
      `/api/skills/${enc(name)}${category ? `?category=${enc(category)}` : ""}`,
    ),
  setSkillEnabled: (name: string, body: SetSkillEnabled) =>
    request<SkillDetail>(`/api/skills/${enc(name)}`, { method: "PUT", json: body }),
  reloadSkills: () => request<SkillList>("/api/skills/reload", { method: "POST" }),
  deleteSkill: (name: string) =>
    request<void>(`/api/skills/${enc(name)}`, { method: "DELETE" }),
  previewSkillFile: (file: File) => {
    const form = new FormData();
    form.append("file", file, file.name);
    return request<ArchivePreview>("/api/skills/preview", { body: form });
  },
  uploadSkill: (file: File, options: { overwrite?: boolean; enable?: boolean } = {}) => {
    const form = new FormData();
    form.append("file", file, file.name);
    form.append("overwrite", options.overwrite ? "true" : "false");
    form.append("enable", options.enable === false ? "false" : "true");
    return request<InstallResult>("/api/skills/upload", { body: form });
  },
  installFromThread: (body: InstallFromThread) =>
    request<InstallResult>("/api/skills/install", { json: body }),
};

export function downloadUrl(url: string): string {
  return `${url}${url.includes("?") ? "&" : "?"}download=true`;
}
