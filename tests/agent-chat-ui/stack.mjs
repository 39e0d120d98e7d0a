// The Agent Chat UI test's stack: antler-mock-llm, `antler serve` (local sandbox) and the
// built UI under `next start`, with a token for the passthrough and the direct mode.
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, "../..");
const TARGET = process.env.CARGO_TARGET_DIR ? resolve(process.env.CARGO_TARGET_DIR) : join(ROOT, "target");
const UI_DIR = process.env.AGENT_CHAT_UI_DIR;
export const SCREENSHOTS =
  process.env.ACUI_SCREENSHOTS ??
  (process.env.CARGO_TARGET_DIR
    ? join(TARGET, "e2e-screenshots", "agent-chat-ui")
    : join(tmpdir(), "agent-chat-ui-screenshots"));
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const VERBOSE = !!process.env.E2E_VERBOSE;
const ADMIN = { email: "admin@antler.test", password: "acui-admin-password" };
// A 1×1 PNG.
export const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

export const SKIP = !UI_DIR
  ? "AGENT_CHAT_UI_DIR is not set (scripts/agent-chat-ui-test.sh builds the UI and sets it)"
  : !existsSync(join(UI_DIR, ".antler-built"))
    ? `no finished Agent Chat UI build at ${UI_DIR}`
    : false;
if (SKIP) console.log(`skip: ${SKIP}`);

// ---- processes -------------------------------------------------------------------------

const children = new Set();
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

function spawnChild(name, bin, args, opts) {
  const child = spawn(bin, args, { ...opts, stdio: ["ignore", "pipe", "pipe"] });
  children.add(child);
  const stderr = [];
  child.stderr.on("data", (d) => {
    stderr.push(d);
    if (VERBOSE) process.stderr.write(`[${name}] ${d}`);
  });
  child.on("exit", () => children.delete(child));
  child.stderrText = () => Buffer.concat(stderr).toString().slice(-4000);
  return child;
}

/** Starts a process whose first stdout line is `listening on http://…`; answers its URL. */
function startListening(name, bin, args, env) {
  return new Promise((resolvePromise, reject) => {
    const child = spawnChild(name, bin, args, { env: { ...process.env, ...env } });
    const timer = setTimeout(() => reject(new Error(`${name} did not start in 60 s:\n${child.stderrText()}`)), 60_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code}:\n${child.stderrText()}`));
    });
    createInterface({ input: child.stdout }).once("line", (line) => {
      clearTimeout(timer);
      const m = /^listening on (http:\/\/\S+)/.exec(line);
      if (m) resolvePromise({ url: m[1], child });
      else reject(new Error(`${name}: unexpected first line ${JSON.stringify(line)}`));
    });
  });
}

async function stopChild(child, ms = 30_000) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const done = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  let timer;
  const timeout = new Promise((r) => {
    timer = setTimeout(r, ms, "timeout");
  });
  if ((await Promise.race([done, timeout])) === "timeout") child.kill("SIGKILL");
  clearTimeout(timer);
}

/** A port free right now (the UI's origin must be known before Antler starts, for CORS). */
function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once("error", rej);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

/** Polls `fn` until it answers something truthy. */
export async function until(fn, { timeout = 20_000, interval = 200, message = "condition" } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${message} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
    }
    await new Promise((r) => setTimeout(r, interval));
  }
}

export const stack = {};

export async function startStack() {
  const bin = (name) => process.env[`E2E_${name.toUpperCase().replace(/-/g, "_")}_BIN`] ?? join(TARGET, "debug", name);
  stack.dir = mkdtempSync(join(tmpdir(), "antler-acui-"));
  const skills = join(stack.dir, "skills");
  mkdirSync(join(skills, "custom"), { recursive: true });
  cpSync(join(ROOT, "skills/public"), join(skills, "public"), { recursive: true });
  const uiPort = await freePort();
  stack.uiUrl = `http://127.0.0.1:${uiPort}`;

  stack.mock = await startListening("mock-llm", bin("antler-mock-llm"), [
    "--script",
    join(HERE, "mock.yaml"),
    "--bind",
    "127.0.0.1:0",
  ]);
  stack.server = await startListening("antler", bin("antler"), ["serve", "--bind", "127.0.0.1:0"], {
    ANTLER_DATA_DIR: join(stack.dir, "data"),
    ANTLER_SKILLS_DIR: skills,
    // A vision model, so attached images reach it as image_url parts.
    ANTLER_MODELS: `[{name: acui-mock, base_url: "${stack.mock.url}/v1", model: mock, api_key_env: null, supports_vision: true}]`,
    // Host directories: the test needs no Docker (ls and read_file work without host bash).
    ANTLER_SANDBOX_PROVIDER: "local",
    ANTLER_SKILLS_WATCH: "false",
    // Follow-up suggestions would add a model call the script does not expect.
    ANTLER_AGENT_SUGGESTIONS_ENABLED: "false",
    // Direct mode: the UI's pages call the API from another origin.
    ANTLER_HTTP_CORS_ALLOWED_ORIGINS: stack.uiUrl,
    ANTLER_LOG_LEVEL: VERBOSE ? "info" : "warn",
    ANTLER_ADMIN_EMAIL: ADMIN.email,
    ANTLER_ADMIN_PASSWORD: ADMIN.password,
  });
  stack.apiUrl = `${stack.server.url}/api`;
  stack.token = await createToken();

  // `next start` of the cached build; the passthrough route reads these at runtime.
  stack.ui = spawnChild("next", join(UI_DIR, "node_modules/.bin/next"), ["start", "-p", String(uiPort), "-H", "127.0.0.1"], {
    cwd: UI_DIR,
    env: {
      ...process.env,
      NEXT_TELEMETRY_DISABLED: "1",
      LANGGRAPH_API_URL: stack.apiUrl,
      LANGSMITH_API_KEY: stack.token,
    },
  });
  if (VERBOSE) stack.ui.stdout.on("data", (d) => process.stderr.write(`[next] ${d}`));
  else stack.ui.stdout.resume();
  await until(
    async () => {
      if (stack.ui.exitCode !== null) throw new Error(`next start exited:\n${stack.ui.stderrText()}`);
      return (await fetch(stack.uiUrl)).ok;
    },
    { timeout: 60_000, message: `next start on ${stack.uiUrl}` },
  );

  stack.browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  rmSync(SCREENSHOTS, { recursive: true, force: true });
  mkdirSync(SCREENSHOTS, { recursive: true });
}

export async function stopStack() {
  await stack.browser?.close().catch(() => undefined);
  await stopChild(stack.ui);
  await stopChild(stack.server?.child, 60_000);
  await stopChild(stack.mock?.child);
  if (stack.dir) rmSync(stack.dir, { recursive: true, force: true });
}

/** Signs the admin in over HTTP and makes a personal access token (sent as X-Api-Key). */
async function createToken() {
  const base = stack.server.url;
  const login = await fetch(`${base}/api/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(ADMIN),
  });
  if (login.status !== 200) throw new Error(`sign-in: ${login.status} ${await login.text()}`);
  const { csrf_token: csrf } = await login.json();
  const cookie = login.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const r = await fetch(`${base}/api/auth/tokens`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie, "x-csrf-token": csrf },
    body: JSON.stringify({ name: "agent-chat-ui" }),
  });
  if (r.status !== 200) throw new Error(`token: ${r.status} ${await r.text()}`);
  return (await r.json()).token;
}

/** Every chat request the scripted model received. */
async function modelRequests() {
  return (await fetch(`${stack.mock.url}/_requests`)).json();
}

export const textOf = (content) =>
  typeof content === "string" ? content : Array.isArray(content) ? content.map((p) => p?.text ?? "").join("") : "";

/** The model requests answering a person's message containing `marker` (titles excluded). */
export async function chatRequestsFor(marker) {
  return (await modelRequests()).filter((req) => {
    const msgs = req.messages ?? [];
    const system = msgs.filter((m) => m.role === "system").map((m) => textOf(m.content)).join("\n");
    const lastUser = msgs.findLast((m) => m.role === "user");
    return !system.includes("You write titles") && lastUser && textOf(lastUser.content).includes(marker);
  });
}
