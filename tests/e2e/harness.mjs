// The end-to-end harness: starts antler-mock-llm and `antler serve` (real Docker sandbox, the
// built UI), launches the system Chromium through playwright-core, records console errors,
// and takes screenshots.
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const TARGET = process.env.CARGO_TARGET_DIR ? resolve(process.env.CARGO_TARGET_DIR) : join(ROOT, "target");
export const SCREENSHOTS = process.env.E2E_SCREENSHOTS ?? join(TARGET, "e2e-screenshots");
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

const children = new Set();
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

/** Starts a process whose first stdout line is `listening on http://…`; answers the URL. */
function startListening(name, bin, args, env) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(bin, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    children.add(child);
    const stderr = [];
    child.stderr.on("data", (d) => {
      stderr.push(d);
      if (process.env.E2E_VERBOSE) process.stderr.write(`[${name}] ${d}`);
    });
    const timer = setTimeout(() => reject(new Error(`${name} did not start in 60 s:\n${Buffer.concat(stderr)}`)), 60_000);
    child.on("exit", (code) => {
      children.delete(child);
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code}:\n${Buffer.concat(stderr).toString().slice(-4000)}`));
    });
    const lines = createInterface({ input: child.stdout });
    lines.once("line", (line) => {
      clearTimeout(timer);
      const m = /^listening on (http:\/\/\S+)/.exec(line);
      if (!m) reject(new Error(`${name}: unexpected first line ${JSON.stringify(line)}`));
      else resolvePromise({ url: m[1], child, stderr });
    });
  });
}

async function stopChild(child, ms = 30_000) {
  if (!child || child.exitCode !== null) return;
  const done = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  let timer;
  const timeout = new Promise((r) => {
    timer = setTimeout(r, ms, "timeout");
  });
  if ((await Promise.race([done, timeout])) === "timeout") child.kill("SIGKILL");
  clearTimeout(timer);
}

/** The admin the server is started with. */
export const ADMIN = { email: "admin@antler.test", password: "e2e-admin-password" };

/** The system message of a model request. */
export const systemOf = (request) => String(request.messages?.[0]?.content ?? "");

/** The last user message of a model request. */
export const lastUserOf = (request) => {
  const users = (request.messages ?? []).filter((m) => m.role === "user");
  return String(users.at(-1)?.content ?? "");
};

/** Empties a screenshot folder of its pictures; the folders in it (another test file's) stay. */
function clearScreenshots(dir) {
  mkdirSync(dir, { recursive: true });
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith(".png")) rmSync(join(dir, entry.name), { force: true });
  }
}

export class Stack {
  /** `screenshots`: the folder of this test file's screenshots (`screenshot`'s `dir`), emptied
   * at the start; each test file keeps its own, so running one file does not drop another's. */
  constructor({ screenshots = SCREENSHOTS } = {}) {
    this.screenshots = screenshots;
  }

  /** `env`: more variables for the server (e.g. `ANTLER_MCP_SERVERS`), over the harness's; or
   * a function of the scripted model's URL answering them (e.g. to configure more models). */
  async start({ env = {} } = {}) {
    const bin = (name) => process.env[`E2E_${name.toUpperCase().replace(/-/g, "_")}_BIN`] ?? join(TARGET, "debug", name);
    this.dir = mkdtempSync(join(tmpdir(), "antler-e2e-"));
    const skills = join(this.dir, "skills");
    mkdirSync(join(skills, "custom"), { recursive: true });
    cpSync(join(ROOT, "skills/public"), join(skills, "public"), { recursive: true });
    const mock = await startListening("mock-llm", bin("antler-mock-llm"), [
      "--script",
      join(ROOT, "tests/e2e/mock.yaml"),
      "--bind",
      "127.0.0.1:0",
    ]);
    this.mock = mock;
    this.mockUrl = mock.url;
    const server = await startListening("antler", bin("antler"), ["serve", "--bind", "127.0.0.1:0"], {
      ANTLER_DATA_DIR: join(this.dir, "data"),
      ANTLER_SKILLS_DIR: skills,
      ANTLER_WEB_DIR: process.env.E2E_WEB_DIR ?? join(ROOT, "frontend/dist"),
      ANTLER_MODELS: `[{name: e2e-demo, base_url: "${mock.url}/v1", model: mock, api_key_env: null, demo: true}]`,
      ANTLER_SANDBOX_PROVIDER: process.env.E2E_SANDBOX ?? "docker",
      ANTLER_SANDBOX_INSTANCE_ID: `e2e-${process.pid}`,
      ANTLER_SKILLS_WATCH: "false",
      // Scenario o imports a repository it makes under the temporary directory.
      ANTLER_SKILLS_IMPORT_ALLOWED_FILE_ROOTS: tmpdir(),
      // Learning from conversations would add model requests the scenarios do not expect.
      ANTLER_MEMORY_EXTRACTION: "false",
      // Likewise follow-up suggestions (one more call after each answer); suggestions.test.mjs
      // turns them on.
      ANTLER_AGENT_SUGGESTIONS_ENABLED: "false",
      ANTLER_LOG_LEVEL: process.env.E2E_VERBOSE ? "info" : "warn",
      ANTLER_ADMIN_EMAIL: ADMIN.email,
      ANTLER_ADMIN_PASSWORD: ADMIN.password,
      ...(typeof env === "function" ? env(mock.url) : env),
    });
    this.server = server;
    this.baseUrl = server.url;
    // The admin's token for the test's own API calls; pages sign in with the password.
    this.token = await this.createToken(ADMIN);
    const health = await this.api("GET", "/health");
    if (health.sandbox !== (process.env.E2E_SANDBOX ?? "docker")) {
      throw new Error(`the server runs the ${health.sandbox} sandbox: ${JSON.stringify(health)}`);
    }
    this.browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
      // playwright gives every launch a fresh temporary profile (--user-data-dir).
    });
    clearScreenshots(this.screenshots);
    return this;
  }

  async stop() {
    await this.browser?.close().catch(() => undefined);
    const t = Date.now();
    await stopChild(this.server?.child, 60_000);
    if (process.env.E2E_VERBOSE) console.log(`# server stopped in ${Date.now() - t} ms`);
    await stopChild(this.mock?.child);
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }

  /** Signs `account` in over HTTP and makes a personal access token. */
  async createToken(account) {
    const login = await fetch(`${this.baseUrl}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(account),
    });
    if (login.status !== 200) throw new Error(`sign-in of ${account.email}: ${login.status} ${await login.text()}`);
    const { csrf_token: csrf } = await login.json();
    const cookie = login.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    const r = await fetch(`${this.baseUrl}/api/auth/tokens`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie, "x-csrf-token": csrf },
      body: JSON.stringify({ name: "e2e" }),
    });
    if (r.status !== 200) throw new Error(`token: ${r.status} ${await r.text()}`);
    return (await r.json()).token;
  }

  /** Calls the API as the admin (or with `token`); answers the parsed body (throws on an
   * unexpected status). */
  async api(method, path, body, expectStatus = 200, token = this.token) {
    const headers = body ? { "content-type": "application/json" } : {};
    if (token) headers.authorization = `Bearer ${token}`;
    const r = await fetch(this.baseUrl + path, {
      method,
      headers,
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await r.text();
    if (r.status !== expectStatus) throw new Error(`${method} ${path}: ${r.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  }

  /** Every chat request the scripted model received. */
  async modelRequests() {
    const r = await fetch(`${this.mockUrl}/_requests`);
    return r.json();
  }

  /** The last chat request (not a title request) whose last user message contains `text`. */
  async modelRequestFor(text) {
    const requests = await this.modelRequests();
    const matching = requests.filter((r) => !systemOf(r).includes("You write titles") && lastUserOf(r).includes(text));
    if (matching.length === 0) throw new Error(`the model received no request for ${JSON.stringify(text)}`);
    return matching.at(-1);
  }

  /** The system prompt of the last chat request about `text`. */
  async systemPromptFor(text) {
    return systemOf(await this.modelRequestFor(text));
  }

  /** A thread's runs (GET …/runs). */
  async runsOf(threadId) {
    return this.api("GET", `/api/threads/${encodeURIComponent(threadId)}/runs`);
  }

  /** A fresh browser page that records console errors and uncaught exceptions, signed in as
   * `account` (the admin by default; `null`: signed out). */
  async page({ width = 1280, height = 860, colorScheme = "light", account = ADMIN, locale } = {}) {
    // `locale` (e.g. "zh-CN"): the browser's language (navigator.languages, Accept-Language).
    const context = await this.browser.newContext({
      viewport: { width, height },
      colorScheme,
      baseURL: this.baseUrl,
      ...(locale ? { locale } : {}),
    });
    if (account) {
      // The context's request API shares its cookie jar: the page starts signed in.
      const r = await context.request.post("/api/auth/login", { data: account });
      if (r.status() !== 200) throw new Error(`sign-in of ${account.email}: ${r.status()} ${await r.text()}`);
    }
    const page = await context.newPage();
    const errors = [];
    const allowed = [];
    page.on("console", (msg) => {
      if (msg.type() === "error") errors.push(`console: ${msg.text()}`);
    });
    page.on("pageerror", (err) => errors.push(`pageerror: ${err.message}`));
    // Which request a "Failed to load resource" console error was about.
    const failed = [];
    page.on("response", (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.request().method()} ${r.url()}`);
    });
    page.setDefaultTimeout(20_000);
    return {
      page,
      context,
      /** Declares an expected console error (e.g. the browser logging an expected 409). */
      allow(re) {
        allowed.push(re);
      },
      /** Fails when the page logged an error that was not declared. */
      assertNoErrors() {
        const unexpected = errors.filter((e) => !allowed.some((re) => re.test(e)));
        if (unexpected.length) {
          throw new Error(`browser console errors:\n${unexpected.join("\n")}\nfailed requests:\n${failed.join("\n")}`);
        }
      },
      async close() {
        await context.close();
      },
    };
  }
}

export async function screenshot(page, name, dir = SCREENSHOTS) {
  const path = join(dir, `${name}.png`);
  await page.screenshot({ path });
  return path;
}

/** Polls `fn` until it answers something truthy. */
export async function until(fn, { timeout = 20_000, interval = 100, message = "condition" } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${message} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, interval));
  }
}

/** The thread id of a chat page. */
export function threadIdOf(page) {
  const m = /\/threads\/([^/?#]+)/.exec(page.url());
  if (!m) throw new Error(`not a thread page: ${page.url()}`);
  return decodeURIComponent(m[1]);
}

/** Sends a message from the chat's message box and waits for the thread page. */
export async function sendMessage(page, text) {
  const box = page.getByRole("textbox", { name: "Message" });
  await box.fill(text);
  await box.press("Enter");
  await page.waitForURL(/\/threads\/[^/]+/);
}
