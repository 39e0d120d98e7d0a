// A real Antler server and the scripted mock model for the JS SDK suite: both started from the
// built binaries (ANTLER_BIN, MOCK_LLM_BIN), on port 0, with their own temporary directories.
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

/** Starts `cmd` and answers [process, url] once it prints `listening on <url>`. */
function start(cmd, args, env) {
  return new Promise((resolve, reject) => {
    const proc = spawn(cmd, args, { env, stdio: ["ignore", "pipe", "inherit"] });
    const lines = createInterface({ input: proc.stdout });
    lines.once("line", (line) => {
      if (line.startsWith("listening on ")) {
        resolve([proc, line.slice("listening on ".length).trim()]);
      } else {
        proc.kill();
        reject(new Error(`${cmd} did not start: ${line}`));
      }
    });
    proc.once("exit", (code) => reject(new Error(`${cmd} exited with ${code} before listening`)));
  });
}

/** Waits for a child to exit after SIGTERM. */
function stop(proc) {
  return new Promise((resolve) => {
    if (proc.exitCode !== null) return resolve();
    proc.once("exit", () => resolve());
    proc.kill("SIGTERM");
  });
}

/**
 * Starts mock-llm with `script` and a server using it. Answers `{base, mockUrl, token(email),
 * createUser(email), close()}`: `base` is the server's origin, `token` makes a personal access
 * token from the command line as an operator would.
 */
export async function startServer(script) {
  const antler = process.env.ANTLER_BIN;
  const mockBin = process.env.MOCK_LLM_BIN;
  if (!antler || !mockBin) throw new Error("ANTLER_BIN and MOCK_LLM_BIN must name the built binaries");
  const root = mkdtempSync(join(tmpdir(), "antler-sdk-js-"));
  mkdirSync(join(root, "skills/public"), { recursive: true });
  mkdirSync(join(root, "skills/custom"), { recursive: true });
  writeFileSync(join(root, "mock.yaml"), script);
  const [mock, mockUrl] = await start(mockBin, ["--script", join(root, "mock.yaml")], process.env);
  const env = {
    ...process.env,
    ANTLER_DATA_DIR: join(root, "data"),
    ANTLER_SKILLS_DIR: join(root, "skills"),
    ANTLER_SKILLS_WATCH: "false",
    ANTLER_SANDBOX_PROVIDER: "local",
    // Follow-up suggestions would add a model call the scripts do not expect.
    ANTLER_AGENT_SUGGESTIONS_ENABLED: "false",
    ANTLER_MODELS: `- {name: mock, base_url: "${mockUrl}/v1", model: mock}\n`,
    ANTLER_LOG_LEVEL: "warn",
    ANTLER_ADMIN_EMAIL: "sdk-admin@antler.test",
    ANTLER_ADMIN_PASSWORD: "sdk-password-1",
  };
  let server;
  try {
    [server] = await start(antler, ["serve", "--bind", "127.0.0.1:0"], env).then(([p, url]) => {
      env.__base = url;
      return [p];
    });
  } catch (e) {
    await stop(mock);
    throw e;
  }
  const base = env.__base;
  delete env.__base;
  const cli = (args, input) =>
    execFileSync(antler, args, { env, input, encoding: "utf8" }).trim();
  return {
    base,
    mockUrl,
    token: (email) => cli(["token", "create", "--user", email, "--name", `sdk-js-${Date.now()}`]),
    createUser: (email) => cli(["user", "create", email, "--password-stdin"], "user-password-1\n"),
    async close() {
      await stop(server);
      await stop(mock);
      rmSync(root, { recursive: true, force: true });
    },
  };
}
