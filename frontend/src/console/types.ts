// The admin runs console's wire types: named aliases of the generated OpenAPI types
// (crates/protocol/src/console.rs; `npm run gen:api` regenerates src/api/schema.d.ts).
import type { components, operations } from "../api/schema";
import type { RunStatus, RunUsage } from "../api/types";

type Schemas = components["schemas"];

export type { RunStatus, RunUsage };

/** Why a run stopped. */
export type StopReason = Schemas["StopReason"];
/** What a step of a run was: a model call, a tool call or a subagent. */
export type RunStepKind = Schemas["RunStepKind"];
/** How a step ended. */
export type RunStepStatus = Schemas["RunStepStatus"];
/** One step of a run's timeline. */
export type RunStep = Schemas["RunStep"];
/** How often a run called one tool, and how many of those calls failed. */
export type ToolUse = Schemas["ToolUse"];
/** A run as the console lists it. */
export type ConsoleRun = Schemas["ConsoleRun"];
/** `GET /api/admin/runs`: a page of runs, newest first, and how many match. */
export type ConsoleRunList = Schemas["ConsoleRunList"];
/** `GET /api/admin/runs/{run_id}`: a run, its timeline, its subagents' runs nested. */
export type ConsoleRunDetail = Schemas["ConsoleRunDetail"];
/** The query `GET /api/admin/runs` takes (every value a string; empty means absent). */
export type ConsoleQuery = NonNullable<operations["list_console_runs"]["parameters"]["query"]>;
