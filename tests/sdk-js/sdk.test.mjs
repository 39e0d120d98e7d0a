// The official LangGraph JavaScript SDK (@langchain/langgraph-sdk from npm, unmodified) against
// a real Antler server and the scripted mock model: every client method for assistants,
// threads, runs, crons and the store, with the shapes the SDK's types promise.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@langchain/langgraph-sdk";
import { startServer } from "./server.mjs";

const SCRIPT = `
options: {chunk_size: 5}
scenarios:
  - system: "You write titles"
    turns: [{content: "SDK chat"}]
  - match: "export the report"
    turns:
      - tool_calls: [{name: ask_clarification, arguments: {question: "Which format?", clarification_type: approach_choice, options: [CSV, JSON]}}]
  - match: "JSON please"
    turns: [{content: "Exporting as JSON."}]
  - match: "very slow"
    turns:
      - content: "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen"
        chunk_size: 2
        chunk_delay_ms: 200
  - match: "slow"
    turns:
      - content: "a slow answer that takes a little while to stream"
        chunk_size: 3
        chunk_delay_ms: 40
  - match: ""
    turns:
      - tool_calls: [{name: write_file, arguments: {path: /mnt/user-data/outputs/sdk.txt, content: "from the js sdk"}}]
      - content: "Hello from Antler."
        usage: {prompt_tokens: 12, completion_tokens: 4}
`;

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const human = (content) => ({ messages: [{ role: "user", content }] });

let server;
let client;
let other;

/** Every part of an SDK stream. */
async function collect(stream) {
  const parts = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

/** The HTTP status of a failed SDK call. */
async function status(promise) {
  try {
    await promise;
  } catch (e) {
    return e.status ?? e.message;
  }
  return "no error";
}

/** Polls `check` until it answers a truthy value (at most `ms`). */
async function eventually(check, ms = 20000) {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 100));
  }
}

function assertThread(t) {
  assert.equal(typeof t.thread_id, "string");
  assert.match(t.created_at, ISO);
  assert.match(t.updated_at, ISO);
  assert.equal(typeof t.metadata, "object");
  assert.ok(["idle", "busy", "interrupted", "error"].includes(t.status), t.status);
  assert.equal(typeof t.interrupts, "object", "the SDK's Thread type requires interrupts");
  assert.ok(t.interrupts !== null && !Array.isArray(t.interrupts));
}

function assertRun(r) {
  for (const key of ["run_id", "thread_id", "assistant_id", "status", "multitask_strategy"]) {
    assert.equal(typeof r[key], "string", key);
  }
  assert.match(r.created_at, ISO);
  assert.equal(typeof r.metadata, "object");
}

function assertCron(c) {
  assert.equal(typeof c.cron_id, "string");
  assert.equal(typeof c.assistant_id, "string");
  assert.equal(typeof c.schedule, "string");
  assert.equal(typeof c.payload, "object");
  assert.equal(typeof c.metadata, "object");
  assert.equal(typeof c.enabled, "boolean");
  assert.match(c.created_at, ISO);
  assert.match(c.updated_at, ISO);
  assert.ok(c.next_run_date === null || ISO.test(c.next_run_date), c.next_run_date);
  assert.ok("thread_id" in c && "end_time" in c && "user_id" in c && "timezone" in c);
}

before(async () => {
  server = await startServer(SCRIPT);
  const opts = { callerOptions: { maxRetries: 0 } };
  client = new Client({ apiUrl: `${server.base}/api`, apiKey: server.token("sdk-admin@antler.test"), ...opts });
  server.createUser("sdk-other@antler.test");
  other = new Client({ apiUrl: `${server.base}/api`, apiKey: server.token("sdk-other@antler.test"), ...opts });
});

after(async () => {
  await server?.close();
});

describe("assistants", () => {
  test("every assistants method", async () => {
    const builtIn = await client.assistants.get("agent");
    assert.equal(builtIn.graph_id, "agent");
    const graph = await client.assistants.getGraph("agent");
    assert.ok(graph.nodes.some((n) => n.id === "tools"));
    const schemas = await client.assistants.getSchemas("agent");
    assert.equal(schemas.graph_id, "agent");
    assert.equal(typeof schemas.context_schema, "object");
    const subgraphs = await client.assistants.getSubgraphs("agent");
    assert.equal(typeof subgraphs, "object");

    const created = await client.assistants.create({
      graphId: "agent",
      name: "Pirate",
      description: "Talks like a pirate.",
      metadata: { team: "sdk-js" },
      context: { system_prompt: "Answer like a pirate." },
    });
    assert.equal(created.version, 1);
    assert.equal(created.name, "Pirate");
    const aid = created.assistant_id;
    const found = await client.assistants.search({ metadata: { team: "sdk-js" } });
    assert.deepEqual(found.map((a) => a.assistant_id), [aid]);
    const paged = await client.assistants.search({ metadata: { team: "sdk-js" }, includePagination: true });
    assert.equal(paged.assistants.length, 1);
    assert.equal(await client.assistants.count({ metadata: { team: "sdk-js" } }), 1);
    const updated = await client.assistants.update(aid, { name: "Captain" });
    assert.deepEqual([updated.version, updated.name], [2, "Captain"]);
    const versions = await client.assistants.getVersions(aid);
    assert.deepEqual(versions.map((v) => v.version), [2, 1]);
    const restored = await client.assistants.setLatest(aid, 1);
    assert.equal(restored.name, "Pirate");
    assert.equal(await status(other.assistants.get(aid)), 404, "another user's agent is invisible");
    await client.assistants.delete(aid);
    assert.equal(await status(client.assistants.get(aid)), 404);
  });
});

describe("threads", () => {
  test("create, get, update, search, count, delete", async () => {
    const thread = await client.threads.create({ metadata: { source: "sdk-js", n: 1 } });
    assertThread(thread);
    assert.equal(thread.status, "idle");
    assert.deepEqual(thread.interrupts, {});
    const same = await client.threads.create({ threadId: thread.thread_id, ifExists: "do_nothing" });
    assert.equal(same.thread_id, thread.thread_id);
    assert.equal(await status(client.threads.create({ threadId: thread.thread_id, ifExists: "raise" })), 409);
    assertThread(await client.threads.get(thread.thread_id));
    const updated = await client.threads.update(thread.thread_id, { metadata: { n: 2 } });
    assert.equal(updated.metadata.n, 2);
    assert.equal(updated.metadata.source, "sdk-js");
    const found = await client.threads.search({ metadata: { source: "sdk-js" }, sortBy: "created_at", sortOrder: "desc" });
    assert.deepEqual(found.map((t) => t.thread_id), [thread.thread_id]);
    found.forEach(assertThread);
    const selected = await client.threads.search({ metadata: { source: "sdk-js" }, select: ["thread_id", "status"] });
    assert.deepEqual(Object.keys(selected[0]).sort(), ["status", "thread_id"]);
    const byId = await client.threads.search({ ids: [thread.thread_id], limit: 100 });
    assert.deepEqual(byId.map((t) => t.thread_id), [thread.thread_id]);
    assert.equal(await client.threads.count({ metadata: { source: "sdk-js" } }), 1);
    assert.equal(await client.threads.count({ metadata: { source: "sdk-js" }, status: "busy" }), 0);
    assert.equal(await other.threads.count({ metadata: { source: "sdk-js" } }), 0, "counts are per user");
    assert.equal(await status(other.threads.get(thread.thread_id)), 404);
    await client.threads.delete(thread.thread_id);
    assert.equal(await status(client.threads.get(thread.thread_id)), 404);
  });

  test("state, history, updateState, patchState and copy", async () => {
    const thread = await client.threads.create({ metadata: { source: "copy-me" } });
    const tid = thread.thread_id;
    const values = await client.runs.wait(tid, "agent", { input: human("slow one") });
    assert.equal(values.messages.at(-1).content, "a slow answer that takes a little while to stream");
    const state = await client.threads.getState(tid);
    assert.deepEqual(state.next, []);
    assert.equal(state.checkpoint.thread_id, tid);
    const history = await client.threads.getHistory(tid, { limit: 100 });
    assert.ok(history.length >= 2);
    assert.equal(history.at(-1).metadata.source, "input");
    const older = await client.threads.getHistory(tid, { limit: 100, before: history[0].checkpoint });
    assert.deepEqual(older.map((s) => s.checkpoint.checkpoint_id), history.slice(1).map((s) => s.checkpoint.checkpoint_id));
    const at = await client.threads.getState(tid, history.at(-1).checkpoint.checkpoint_id);
    assert.deepEqual(at.checkpoint, history.at(-1).checkpoint);

    const updated = await client.threads.updateState(tid, {
      values: { messages: [{ type: "human", content: "a note" }] },
      asNode: "agent",
    });
    const after = await client.threads.getState(tid);
    assert.equal(after.checkpoint.checkpoint_id, updated.checkpoint.checkpoint_id);
    assert.equal(after.values.messages.at(-1).content, "a note");
    await client.threads.patchState(tid, { reviewed: true });
    const patched = await client.threads.getState(tid);
    assert.equal(patched.metadata.reviewed, true);

    const copy = await client.threads.copy(tid);
    assertThread(copy);
    assert.notEqual(copy.thread_id, tid);
    assert.equal(copy.metadata.source, "copy-me");
    const copied = await client.threads.getState(copy.thread_id);
    assert.deepEqual(copied.values.messages.map((m) => m.content), after.values.messages.map((m) => m.content));
    const copiedHistory = await client.threads.getHistory(copy.thread_id, { limit: 100 });
    const original = await client.threads.getHistory(tid, { limit: 100 });
    assert.equal(copiedHistory.length, original.length, "the checkpoint history is copied");
    assert.deepEqual(
      copiedHistory.map((s) => s.values.messages?.length ?? 0),
      original.map((s) => s.values.messages?.length ?? 0),
    );
    // The copy is independent: a run on it leaves the original alone.
    await client.runs.wait(copy.thread_id, "agent", { input: human("slow two") });
    assert.equal((await client.threads.getState(tid)).values.messages.length, after.values.messages.length);
  });

  test("prune deletes threads or keeps only their latest state", async () => {
    const a = await client.threads.create();
    const b = await client.threads.create();
    await client.runs.wait(b.thread_id, "agent", { input: human("slow") });
    const before = (await client.threads.getHistory(b.thread_id, { limit: 100 })).length;
    assert.ok(before > 1);
    const kept = await client.threads.prune([b.thread_id], { strategy: "keep_latest" });
    assert.equal(kept.pruned_count, 1);
    const left = await client.threads.getHistory(b.thread_id, { limit: 100 });
    assert.equal(left.length, 1);
    assert.equal(left[0].values.messages.length, 2, "the latest state stays");
    const deleted = await client.threads.prune([a.thread_id, b.thread_id]);
    assert.equal(deleted.pruned_count, 2);
    assert.equal(await status(client.threads.get(a.thread_id)), 404);
    assert.equal(await status(client.threads.get(b.thread_id)), 404);
  });

  test("an interrupt shows on the thread and a command resumes it", async () => {
    const { thread_id: tid } = await client.threads.create();
    const asked = await client.runs.wait(tid, "agent", { input: human("export the report") });
    assert.equal(asked.__interrupt__[0].value.question, "Which format?");
    const thread = await client.threads.get(tid);
    assertThread(thread);
    assert.equal(thread.status, "interrupted");
    const pending = Object.values(thread.interrupts).flat();
    assert.equal(pending.length, 1);
    assert.equal(pending[0].value.question, "Which format?");
    assert.equal(typeof pending[0].id, "string");
    const state = await client.threads.getState(tid);
    assert.equal(state.tasks[0].interrupts[0].id, pending[0].id);
    const parts = await collect(client.runs.stream(tid, "agent", { command: { resume: "JSON please" }, streamMode: "values" }));
    assert.equal(parts.filter((p) => p.event === "values").at(-1).data.messages.at(-1).content, "Exporting as JSON.");
    const done = await client.threads.get(tid);
    assert.equal(done.status, "idle");
    assert.deepEqual(done.interrupts, {});
  });

  test("joinStream follows the thread's runs", async () => {
    const { thread_id: tid } = await client.threads.create();
    const run = await client.runs.create(tid, "agent", { input: human("slow join") });
    const parts = await collect(client.threads.joinStream(tid, { streamMode: ["values"] }));
    assert.ok(parts.some((p) => p.event === "values"), JSON.stringify(parts.map((p) => p.event)));
    assert.equal((await client.runs.get(tid, run.run_id)).status, "success");
  });
});

describe("runs", () => {
  test("stream in every supported mode", async () => {
    const { thread_id: tid } = await client.threads.create();
    const parts = await collect(
      client.runs.stream(tid, "agent", {
        input: human("hello js sdk"),
        streamMode: ["values", "messages-tuple", "updates", "custom", "events"],
      }),
    );
    const events = parts.map((p) => p.event);
    assert.equal(events[0], "metadata");
    assert.equal(events.at(-1), "end");
    for (const e of ["values", "messages", "updates", "custom", "events"]) assert.ok(events.includes(e), e);
    const text = parts
      .filter((p) => p.event === "messages" && p.data[0].type === "AIMessageChunk")
      .map((p) => p.data[0].content)
      .join("");
    assert.equal(text, "Hello from Antler.");
    const lc = parts.filter((p) => p.event === "events").map((p) => p.data);
    const kinds = new Set(lc.map((e) => e.event));
    for (const k of ["on_chain_start", "on_chain_end", "on_chat_model_stream", "on_tool_start", "on_tool_end"]) {
      assert.ok(kinds.has(k), `${k} in ${[...kinds]}`);
    }
    const streamed = lc.filter((e) => e.event === "on_chat_model_stream").map((e) => e.data.chunk.content).join("");
    assert.equal(streamed, "Hello from Antler.");
    const tool = lc.find((e) => e.event === "on_tool_start");
    assert.equal(tool.name, "write_file");
    assert.equal(typeof tool.run_id, "string");
  });

  test("an unsupported stream mode is a 422 naming the supported ones", async () => {
    const { thread_id: tid } = await client.threads.create();
    let error;
    try {
      await collect(client.runs.stream(tid, "agent", { input: human("x"), streamMode: ["nonsense"] }));
    } catch (e) {
      error = e;
    }
    assert.equal(error?.status, 422, String(error));
    assert.match(error.text, /values/);
    assert.doesNotMatch(error.text, /unknown variant/, "not a raw deserializer message");
  });

  test("create, get, list, join, joinStream, cancel, delete", async () => {
    const { thread_id: tid } = await client.threads.create();
    const run = await client.runs.create(tid, "agent", { input: human("slow please"), metadata: { tag: "js" } });
    assertRun(run);
    assert.equal(run.status, "pending");
    const joined = await collect(client.runs.joinStream(tid, run.run_id));
    assert.equal(joined.at(-1)?.event ?? "end", "end");
    const values = await client.runs.join(tid, run.run_id);
    assert.equal(values.messages.at(-1).content, "a slow answer that takes a little while to stream");
    const got = await client.runs.get(tid, run.run_id);
    assertRun(got);
    assert.equal(got.status, "success");
    assert.equal(got.metadata.tag, "js");
    const listed = await client.runs.list(tid, { status: "success" });
    assert.deepEqual(listed.map((r) => r.run_id), [run.run_id]);

    const slow = await client.runs.create(tid, "agent", { input: human("very slow please") });
    await eventually(async () => (await client.runs.get(tid, slow.run_id)).status === "running");
    await client.runs.cancel(tid, slow.run_id, true);
    assert.equal((await client.runs.get(tid, slow.run_id)).status, "interrupted");
    await client.runs.delete(tid, run.run_id);
    assert.equal(await status(client.runs.get(tid, run.run_id)), 404);
  });

  test("cancelMany and createBatch", async () => {
    const { thread_id: tid } = await client.threads.create();
    const slow = await client.runs.create(tid, "agent", { input: human("very slow please") });
    await eventually(async () => (await client.runs.get(tid, slow.run_id)).status === "running");
    await client.runs.cancelMany({ threadId: tid, runIds: [slow.run_id] });
    await eventually(async () => (await client.runs.get(tid, slow.run_id)).status === "interrupted");

    const threads = [await client.threads.create(), await client.threads.create()];
    const batch = await client.runs.createBatch(
      threads.map((t) => ({ threadId: t.thread_id, assistantId: "agent", input: human("slow batch") })),
    );
    assert.equal(batch.length, 2);
    batch.forEach(assertRun);
    for (const r of batch) await client.runs.join(r.thread_id, r.run_id);
  });

  test("multitask strategies: reject, interrupt, enqueue and rollback", async () => {
    const { thread_id: tid } = await client.threads.create();
    const first = await client.runs.create(tid, "agent", { input: human("very slow first") });
    await eventually(async () => (await client.runs.get(tid, first.run_id)).status === "running");
    assert.equal(
      await status(client.runs.create(tid, "agent", { input: human("slow second"), multitaskStrategy: "reject" })),
      409,
    );
    const rolled = await client.runs.create(tid, "agent", { input: human("slow third"), multitaskStrategy: "rollback" });
    await client.runs.join(tid, rolled.run_id);
    assert.equal(await status(client.runs.get(tid, first.run_id)), 404, "the rolled back run is gone");
    const state = await client.threads.getState(tid);
    const humans = state.values.messages.filter((m) => m.type === "human").map((m) => m.content);
    assert.deepEqual(humans, ["slow third"], "nor is its input");
    const runs = await client.runs.list(tid);
    assert.deepEqual(runs.map((r) => r.run_id), [rolled.run_id]);

    const slow = await client.runs.create(tid, "agent", { input: human("very slow fourth") });
    await eventually(async () => (await client.runs.get(tid, slow.run_id)).status === "running");
    const queued = await client.runs.create(tid, "agent", { input: human("slow fifth"), multitaskStrategy: "enqueue" });
    const interrupting = await client.runs.create(tid, "agent", { input: human("slow sixth"), multitaskStrategy: "interrupt" });
    await client.runs.join(tid, interrupting.run_id);
    assert.equal((await client.runs.get(tid, slow.run_id)).status, "interrupted");
    assert.ok(["interrupted", "success"].includes((await client.runs.get(tid, queued.run_id)).status));
  });

  test("wait and stream without a thread are stateless", async () => {
    const values = await client.runs.wait(null, "agent", { input: human("slow stateless") });
    assert.equal(values.messages.at(-1).content, "a slow answer that takes a little while to stream");
    const parts = await collect(client.runs.stream(null, "agent", { input: human("slow stateless") }));
    assert.equal(parts[0].event, "metadata");
    assert.equal(parts.at(-1).event, "end");
  });
});

describe("crons", () => {
  test("every crons method", async () => {
    const { thread_id: tid } = await client.threads.create();
    const onThread = await client.crons.createForThread(tid, "agent", {
      schedule: "0 9 * * 1-5",
      timezone: "Europe/Paris",
      input: human("slow daily report"),
      metadata: { name: "daily", suite: "sdk-js" },
    });
    assertCron(onThread);
    assert.equal(onThread.thread_id, tid);
    assert.equal(onThread.timezone, "Europe/Paris");
    assert.equal(onThread.enabled, true);
    assert.ok(new Date(onThread.next_run_date) > new Date());
    const stateless = await client.crons.create("agent", {
      schedule: "30 6 1 * *",
      input: human("slow monthly"),
      metadata: { name: "monthly", suite: "sdk-js" },
      onRunCompleted: "keep",
    });
    assertCron(stateless);
    assert.equal(stateless.thread_id, null);

    const all = await client.crons.search({ metadata: { suite: "sdk-js" }, sortBy: "next_run_date", sortOrder: "asc" });
    assert.equal(all.length, 2);
    all.forEach(assertCron);
    assert.ok(new Date(all[0].next_run_date) <= new Date(all[1].next_run_date));
    const forThread = await client.crons.search({ threadId: tid });
    assert.deepEqual(forThread.map((c) => c.cron_id), [onThread.cron_id]);
    const picked = await client.crons.search({ metadata: { suite: "sdk-js" }, select: ["cron_id", "schedule"] });
    assert.deepEqual(Object.keys(picked[0]).sort(), ["cron_id", "schedule"]);
    assert.equal(await client.crons.count({ metadata: { suite: "sdk-js" } }), 2);
    assert.equal(await client.crons.count({ threadId: tid }), 1);
    assert.equal(await other.crons.count({ metadata: { suite: "sdk-js" } }), 0, "crons are per user");

    const paused = await client.crons.update(onThread.cron_id, { enabled: false });
    assertCron(paused);
    assert.equal(paused.enabled, false);
    assert.deepEqual(
      (await client.crons.search({ metadata: { suite: "sdk-js" }, enabled: true })).map((c) => c.cron_id),
      [stateless.cron_id],
    );
    const moved = await client.crons.update(stateless.cron_id, { schedule: "15 7 * * *", timezone: "UTC" });
    assert.equal(moved.schedule, "15 7 * * *");
    assert.equal(new Date(moved.next_run_date).getUTCMinutes(), 15);

    assert.equal(await status(client.crons.create("agent", { schedule: "every day" })), 422);
    assert.equal(await status(client.crons.create("agent", { schedule: "0 9 * * *", timezone: "Mars/Olympus" })), 422);
    assert.equal(await status(other.crons.delete(onThread.cron_id)), 404);
    await client.crons.delete(onThread.cron_id);
    await client.crons.delete(stateless.cron_id);
    assert.equal(await client.crons.count({ metadata: { suite: "sdk-js" } }), 0);
  });

  test("a cron every second starts ordinary runs", async () => {
    const cron = await client.crons.create("agent", {
      schedule: "* * * * * *",
      input: human("slow tick"),
      metadata: { suite: "sdk-js-tick" },
      onRunCompleted: "keep",
    });
    const threads = await eventually(async () => {
      const found = await client.threads.search({ metadata: { cron_id: cron.cron_id } });
      return found.length >= 1 && found;
    });
    const runs = await eventually(async () => {
      const listed = await client.runs.list(threads[0].thread_id);
      return listed.length && listed[0].status === "success" && listed;
    });
    assert.equal(runs[0].metadata.cron_id, cron.cron_id);
    await client.crons.delete(cron.cron_id);
  });
});

describe("store", () => {
  test("every store method", async () => {
    await client.store.putItem(["sdk", "prefs"], "theme", { color: "teal", rank: 3 });
    await client.store.putItem(["sdk", "prefs"], "font", { family: "serif", rank: 7 });
    await client.store.putItem(["sdk", "notes", "2026"], "n1", { text: "the quick brown fox jumps over the lazy dog" });
    await client.store.putItem(["sdk", "notes", "2026"], "n2", { text: "a lazy afternoon" });
    await client.store.putItem(["sdk", "notes", "2026"], "n3", { text: "brown bread" }, { index: false });

    const item = await client.store.getItem(["sdk", "prefs"], "theme");
    assert.deepEqual(item.namespace, ["sdk", "prefs"]);
    assert.equal(item.key, "theme");
    assert.deepEqual(item.value, { color: "teal", rank: 3 });
    assert.match(item.created_at, ISO);
    assert.match(item.updatedAt, ISO);
    assert.equal(await other.store.getItem(["sdk", "prefs"], "theme"), null, "per user");

    await client.store.putItem(["sdk", "prefs"], "theme", { color: "plum", rank: 4 });
    assert.equal((await client.store.getItem(["sdk", "prefs"], "theme")).value.color, "plum");

    const prefs = await client.store.searchItems(["sdk", "prefs"], { filter: { rank: { $gt: 5 } } });
    assert.deepEqual(prefs.items.map((i) => i.key), ["font"]);
    const exact = await client.store.searchItems(["sdk"], { filter: { color: "plum" } });
    assert.deepEqual(exact.items.map((i) => i.key), ["theme"]);
    const ranked = await client.store.searchItems(["sdk", "notes"], { query: "lazy fox" });
    assert.deepEqual(ranked.items.map((i) => i.key), ["n1", "n2"], "best match first; unindexed n3 absent");
    assert.equal(typeof ranked.items[0].score, "number");
    assert.ok(ranked.items[0].score >= ranked.items[1].score);
    const paged = await client.store.searchItems(["sdk"], { limit: 2, offset: 1 });
    assert.equal(paged.items.length, 2);

    const spaces = await client.store.listNamespaces({ prefix: ["sdk"] });
    assert.deepEqual(
      spaces.namespaces.map((n) => n.join(".")).sort(),
      ["sdk.notes.2026", "sdk.prefs"],
    );
    const shallow = await client.store.listNamespaces({ prefix: ["sdk"], maxDepth: 2 });
    assert.deepEqual(shallow.namespaces.map((n) => n.join(".")).sort(), ["sdk.notes", "sdk.prefs"]);
    const bySuffix = await client.store.listNamespaces({ suffix: ["prefs"] });
    assert.deepEqual(bySuffix.namespaces, [["sdk", "prefs"]]);
    assert.deepEqual((await other.store.listNamespaces()).namespaces, []);

    await client.store.deleteItem(["sdk", "prefs"], "font");
    assert.equal(await client.store.getItem(["sdk", "prefs"], "font"), null, "a missing item is null, as the SDK's type says");
  });

  test("an item with a TTL expires", async () => {
    // The TTL is in minutes: a fraction of one is a few seconds.
    await client.store.putItem(["sdk", "ttl"], "brief", { v: 1 }, { ttl: 0.05 });
    assert.equal((await client.store.getItem(["sdk", "ttl"], "brief", { refreshTtl: false })).value.v, 1);
    await eventually(async () => (await client.store.getItem(["sdk", "ttl"], "brief", { refreshTtl: false })) === null);
    assert.deepEqual((await client.store.searchItems(["sdk", "ttl"])).items, []);
  });
});

describe("auth", () => {
  test("without a token the server answers 401", async () => {
    const anonymous = new Client({ apiUrl: `${server.base}/api`, apiKey: null, callerOptions: { maxRetries: 0 } });
    assert.equal(await status(anonymous.threads.create()), 401);
  });
});
