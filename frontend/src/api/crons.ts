// Scheduled runs (the LangGraph crons API plus Antler's `GET /api/runs/crons/{id}` and
// "run now") through openapi-fetch: paths, bodies and answers come from the generated OpenAPI
// types. Failures become an `ApiError` carrying the server's error envelope.
import type { components } from "./schema";
import { call, client } from "./typed";

type Schemas = components["schemas"];

/** A schedule as the server answers it (`last_run`: Antler's extra, the latest run it started). */
export type Cron = Schemas["Cron"];
/** The latest run a schedule started. */
export type CronLastRun = Schemas["CronLastRun"];
/** What creating a schedule sends. */
export type CronCreate = Schemas["CronCreate"];
/** What changing a schedule may send (a field left out stays as it is). */
export type CronPatch = Schemas["CronPatch"];
/** What searching sends (the caller's schedules only). */
export type CronSearch = Schemas["CronSearch"];

const byId = (id: string) => ({ params: { path: { cron_id: id } } });

export const cronsApi = {
  // Without `select` every field is there: the answers are whole crons.
  search: (body: CronSearch, signal?: AbortSignal) =>
    call(client.POST("/api/runs/crons/search", { body, signal })).then((crons) => crons as Cron[]),
  get: (id: string, signal?: AbortSignal) => call(client.GET("/api/runs/crons/{cron_id}", { ...byId(id), signal })),
  /** A schedule whose every run starts a new conversation. */
  create: (body: CronCreate) => call(client.POST("/api/runs/crons", { body })),
  /** A schedule whose runs continue the conversation `threadId`. */
  createForThread: (threadId: string, body: CronCreate) =>
    call(client.POST("/api/threads/{thread_id}/runs/crons", { params: { path: { thread_id: threadId } }, body })),
  update: (id: string, body: CronPatch) => call(client.PATCH("/api/runs/crons/{cron_id}", { ...byId(id), body })),
  delete: (id: string) => call(client.DELETE("/api/runs/crons/{cron_id}", byId(id))),
  /** Starts a run now (the schedule's next run time stays). */
  runNow: (id: string) => call(client.POST("/api/runs/crons/{cron_id}/run", byId(id))),
};
