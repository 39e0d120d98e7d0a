// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { MemoryRouter } from "react-router-dom";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { McpConfigView, McpServer, McpServerConfigView, Role } from "../api/types";
import { AuthGate } from "../auth/auth";
import { ToastProvider } from "../components/Toasts";
import { json } from "../test/agents";
import { methodOf, pathOf, requestOf } from "../test/fetch";
import { ToolsPage } from "./ToolsPage";
import { polyfillDialog } from "../test/dialog";

interface Call {
  method: string;
  path: string;
  body: string;
}

const server = (name: string, extra: Partial<McpServer> = {}): McpServer => ({
  name,
  transport: "stdio",
  description: null,
  state: "idle",
  last_error: null,
  tools: [],
  calls: 0,
  failed_calls: 0,
  sandboxed: false,
  running_in_threads: 0,
  ...extra,
});

const everything = server("everything", {
  description: "The MCP reference server",
  state: "connected",
  calls: 12,
  failed_calls: 1,
  tools: [
    {
      name: "echo",
      model_name: "mcp__everything__echo",
      description: "Echoes back the input",
      input_schema: {
        type: "object",
        properties: {
          repeat: { type: "integer", description: "How often" },
          message: { type: "string", description: "Message to echo" },
        },
        required: ["message"],
      },
    },
    { name: "get-env", model_name: "mcp__everything__get-env", description: "", input_schema: { type: "object" } },
  ],
});
const broken = server("github", {
  transport: "streamable_http",
  state: "failed",
  last_error: "connection refused (https://mcp.example.com/mcp)",
});
const lazy = server("time");

/**
 * A server signed in as `role` whose MCP servers are `servers`; a restart answers `restart`
 * (a status, or an error status with an envelope) and the next list answers `after`.
 */
function serve(
  role: Role,
  servers: McpServer[],
  options: {
    restart?: McpServer | { status: number; message: string };
    after?: McpServer[];
    /** What `GET /api/mcp/config` answers. */
    config?: McpConfigView;
    /** A refusal of `PUT /api/mcp/config`. */
    putError?: { status: number; message: string };
  } = {},
) {
  const calls: Call[] = [];
  let current = servers;
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const path = pathOf(input);
      const method = methodOf(input, init);
      const body = method === "GET" ? "" : await requestOf(input, init).text();
      calls.push({ method, path, body });
      if (path === "/api/auth/status") return json({ mode: "password", setup_required: false });
      if (path === "/api/auth/me") return json({ id: "u1", email: "ann@example.com", role });
      if (path === "/api/mcp/servers") return json({ servers: current });
      if (path === "/api/mcp/config" && method === "GET") return json(options.config ?? { servers: {} });
      if (path === "/api/mcp/config" && method === "PUT") {
        if (options.putError) {
          return json({ error: { code: "invalid_body", message: options.putError.message } }, options.putError.status);
        }
        return json(options.config ?? { servers: {} });
      }
      if (path.endsWith("/restart") && method === "POST") {
        const answer = options.restart;
        if (answer && "status" in answer && typeof answer.status === "number") {
          return json({ error: { code: "forbidden", message: answer.message } }, answer.status);
        }
        current = options.after ?? current;
        return json(answer);
      }
      return json({ error: { code: "not_found", message: path } }, 404);
    }),
  );
  return calls;
}

function renderPage() {
  render(
    <MemoryRouter initialEntries={["/settings/tools"]}>
      <ToastProvider>
        <AuthGate>
          <ToolsPage />
        </AuthGate>
      </ToastProvider>
    </MemoryRouter>,
  );
}

const card = (name: string) =>
  screen.getAllByTestId("mcp-server").find((c) => c.dataset["server"] === name) as HTMLElement;
const lists = (calls: Call[]) => calls.filter((c) => c.path === "/api/mcp/servers").length;

beforeAll(polyfillDialog);

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("Settings → Tools", () => {
  it("lists each server with its transport, state, counts and tools with their arguments", async () => {
    serve("user", [everything, lazy]);
    renderPage();
    await waitFor(() => expect(screen.getAllByTestId("mcp-server")).toHaveLength(2));
    const first = card("everything");
    expect(within(first).getByRole("heading", { name: "everything" })).toBeTruthy();
    expect(within(first).getByText("stdio")).toBeTruthy();
    expect(within(first).getByTestId("mcp-state").textContent).toBe("connected");
    expect(within(first).getByText("The MCP reference server")).toBeTruthy();
    expect(within(first).getByTestId("mcp-calls").textContent).toBe("12 calls · 1 failed");
    // An idle server says it starts when needed, and has no tools to list yet.
    const idle = card("time");
    expect(within(idle).getByTestId("mcp-state").textContent).toBe("idle");
    expect(idle.textContent).toContain("starts on first use");
    expect(idle.textContent).toContain("Its tools are listed once it has started.");

    // The tools are folded until asked for.
    expect(within(first).queryAllByTestId("mcp-tool")).toHaveLength(0);
    const toggle = within(first).getByRole("button", { name: "Show the 2 tools of everything" });
    fireEvent.click(toggle);
    expect(toggle.getAttribute("aria-expanded")).toBe("true");
    const [echo, env] = within(first).getAllByTestId("mcp-tool") as [HTMLElement, HTMLElement];
    expect(within(echo).getByText("echo")).toBeTruthy();
    expect(within(echo).getByText("mcp__everything__echo").tagName).toBe("CODE");
    expect(within(echo).getByText("Echoes back the input")).toBeTruthy();
    const rows = within(within(echo).getByRole("table", { name: "Arguments of echo" })).getAllByRole("row");
    // Required arguments first.
    expect(rows.map((r) => [...r.querySelectorAll("th, td")].map((c) => c.textContent))).toEqual([
      ["Name", "Type", "Required", "Description"],
      ["message", "string", "yes", "Message to echo"],
      ["repeat", "integer", "no", "How often"],
    ]);
    expect(env.textContent).toContain("No arguments.");
  });

  it("marks a server that runs in each conversation's sandbox, with how many it runs in", async () => {
    serve("user", [server("clock", { sandboxed: true, state: "connected", running_in_threads: 2 })]);
    renderPage();
    const clock = await waitFor(() => card("clock"));
    expect(within(clock).getByTestId("mcp-sandboxed").textContent).toBe("in sandbox");
    expect(within(clock).getByTestId("mcp-calls").textContent).toContain("running in 2 conversations");
  });

  it("shows why a server failed, in red", async () => {
    serve("user", [broken]);
    renderPage();
    const error = await screen.findByTestId("mcp-last-error");
    expect(error.textContent).toContain("connection refused (https://mcp.example.com/mcp)");
    expect(error.className).toContain("mcp-server-error");
    const failed = card("github");
    expect(within(failed).getByTestId("mcp-state").className).toContain("badge-error");
    expect(within(failed).getByText("Streamable HTTP")).toBeTruthy();
  });

  it("lets an admin restart a server, shows the new status, then loads the list again", async () => {
    const fixed = { ...broken, state: "connected" as const, last_error: null };
    const calls = serve("admin", [broken, lazy], { restart: fixed, after: [fixed, lazy] });
    renderPage();
    await screen.findByTestId("mcp-last-error");
    const before = lists(calls);
    const button = within(card("github")).getByRole("button", { name: "Restart github" });
    await act(async () => {
      fireEvent.click(button);
    });
    const restarts = calls.filter((c) => c.path.endsWith("/restart"));
    expect(restarts).toEqual([{ method: "POST", path: "/api/mcp/servers/github/restart", body: "" }]);
    await waitFor(() => expect(within(card("github")).getByTestId("mcp-state").textContent).toBe("connected"));
    expect(screen.queryByTestId("mcp-last-error")).toBeNull();
    expect(await screen.findByText("Restarted “github”: connected.")).toBeTruthy();
    await waitFor(() => expect(lists(calls)).toBe(before + 1));
    expect(within(card("github")).getByRole("button", { name: "Restart github" })).toHaveProperty("disabled", false);
  });

  it("shows the server's refusal of a restart on the card", async () => {
    serve("admin", [lazy], { restart: { status: 403, message: "only admins restart MCP servers" } });
    renderPage();
    const button = await screen.findByRole("button", { name: "Restart time" });
    await act(async () => {
      fireEvent.click(button);
    });
    const alert = await within(card("time")).findByRole("alert");
    expect(alert.textContent).toBe("Restart failed: only admins restart MCP servers");
  });

  it("shows people who are not admins the servers without a Restart button", async () => {
    serve("user", [everything, broken]);
    renderPage();
    await waitFor(() => expect(screen.getAllByTestId("mcp-server")).toHaveLength(2));
    expect(screen.queryByRole("button", { name: /^Restart/ })).toBeNull();
    expect(screen.getByText(/Admins configure and restart them/)).toBeTruthy();
  });

  it("explains where servers are configured when there are none, and refreshes on demand", async () => {
    const calls = serve("admin", []);
    renderPage();
    expect(await screen.findByText("No MCP servers configured")).toBeTruthy();
    const body = screen.getByText(/Admins add them under/);
    expect(body.textContent).toBe(
      "Admins add them under mcp.servers in the configuration; stdio servers run on the server host, outside the sandbox.",
    );
    expect(body.querySelector("a")).toBeNull();
    const before = lists(calls);
    fireEvent.click(screen.getByRole("button", { name: "Refresh the servers" }));
    await waitFor(() => expect(lists(calls)).toBe(before + 1));
  });
});

const hidden = (...variables: string[]) => ({ variables, literal: variables.length === 0 });

const configOf = (extra: Partial<McpServerConfigView> = {}): McpServerConfigView => ({
  transport: "stdio",
  command: null,
  args: [],
  env: {},
  url: null,
  headers: {},
  enabled: true,
  description: null,
  eager: false,
  sandboxed: false,
  init_timeout_secs: 30,
  call_timeout_secs: 120,
  allow_tools: [],
  deny_tools: [],
  ...extra,
});

/** The configuration behind `everything` and `github`: hidden environment and headers. */
const config: McpConfigView = {
  servers: {
    everything: configOf({
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-everything"],
      env: { API_KEY: hidden("EVERYTHING_KEY"), DEBUG: hidden(), OLD: hidden("OLD_VALUE") },
      description: "The MCP reference server",
      init_timeout_secs: 45,
      deny_tools: ["get-env"],
    }),
    github: configOf({
      transport: "streamable_http",
      url: "https://mcp.example.com/mcp",
      headers: { Authorization: hidden("GITHUB_TOKEN") },
      call_timeout_secs: 60,
    }),
  },
};

/** `github` and `everything` as sent back untouched: hidden values as `null`. */
const keptGithub = {
  transport: "streamable_http",
  command: null,
  args: [],
  env: {},
  url: "https://mcp.example.com/mcp",
  headers: { Authorization: null },
  enabled: true,
  description: null,
  eager: false,
  sandboxed: false,
  init_timeout_secs: 30,
  call_timeout_secs: 60,
  allow_tools: [],
  deny_tools: [],
};
const keptEverything = {
  transport: "stdio",
  command: "npx",
  args: ["-y", "@modelcontextprotocol/server-everything"],
  env: { API_KEY: null, DEBUG: null, OLD: null },
  url: null,
  headers: {},
  enabled: true,
  description: "The MCP reference server",
  eager: false,
  sandboxed: false,
  init_timeout_secs: 45,
  call_timeout_secs: 120,
  allow_tools: [],
  deny_tools: ["get-env"],
};

const puts = (calls: Call[]) =>
  calls
    .filter((c) => c.path === "/api/mcp/config" && c.method === "PUT")
    .map((c) => JSON.parse(c.body) as { servers: Record<string, unknown> });
const dialog = () => within(screen.getByRole("dialog"));
const input = (label: string) => dialog().getByLabelText(label) as HTMLInputElement;
const type = (label: string, value: string) => fireEvent.change(input(label), { target: { value } });

describe("Settings → Tools: configuring servers (admins)", () => {
  it("adds a server, sending the others back with their hidden values kept", async () => {
    const calls = serve("admin", [everything, broken], { config });
    renderPage();
    await waitFor(() => expect(screen.getAllByTestId("mcp-server")).toHaveLength(2));
    const before = lists(calls);
    fireEvent.click(screen.getByRole("button", { name: "Add server" }));
    expect(dialog().getByRole("heading", { name: "Add MCP server" })).toBeTruthy();
    // stdio by default, with its warning.
    expect(dialog().getByTestId("mcp-stdio-warning").textContent).toContain(
      "Runs on the server host, outside the sandbox — add only programs you trust.",
    );
    expect((dialog().getByLabelText(/inside each conversation's sandbox/) as HTMLInputElement).checked).toBe(false);
    type("Name", "fetch");
    type("Command", " uvx ");
    fireEvent.change(dialog().getByLabelText("Arguments (one per line)"), {
      target: { value: "mcp-server-fetch\n\n--ignore-robots-txt\n" },
    });
    type("Description", "Fetches web pages");
    fireEvent.click(dialog().getByRole("button", { name: "Add variable" }));
    type("Name of variable 1", "FETCH_TOKEN");
    type("Value of variable 1", "${FETCH_TOKEN}");
    expect(dialog().getByTestId("mcp-variables").textContent).toContain("$VAR or ${VAR}");
    fireEvent.click(dialog().getByLabelText(/Start at/));
    type("Call timeout (seconds)", "30");
    type("Only these tools (comma separated; all when empty)", "fetch, ");
    await act(async () => {
      fireEvent.click(dialog().getByRole("button", { name: "Add server" }));
    });
    await waitFor(() => expect(puts(calls)).toHaveLength(1));
    expect(puts(calls)[0]).toEqual({
      servers: {
        everything: keptEverything,
        github: keptGithub,
        fetch: {
          transport: "stdio",
          command: "uvx",
          args: ["mcp-server-fetch", "--ignore-robots-txt"],
          env: { FETCH_TOKEN: "${FETCH_TOKEN}" },
          url: null,
          headers: {},
          enabled: true,
          description: "Fetches web pages",
          eager: true,
          sandboxed: false,
          call_timeout_secs: 30,
          allow_tools: ["fetch"],
          deny_tools: [],
        },
      },
    });
    expect(await screen.findByText("Added “fetch”.")).toBeTruthy();
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    await waitFor(() => expect(lists(calls)).toBeGreaterThan(before));
  });

  it("adds a server that runs inside each conversation's sandbox, without the host warning", async () => {
    const calls = serve("admin", [everything], { config });
    renderPage();
    fireEvent.click(await screen.findByRole("button", { name: "Add server" }));
    type("Name", "clock");
    type("Command", "python3");
    fireEvent.change(dialog().getByLabelText("Arguments (one per line)"), { target: { value: "-m\nmcp_server_time" } });
    fireEvent.click(dialog().getByLabelText(/inside each conversation's sandbox/));
    expect(dialog().getByTestId("mcp-stdio-warning").textContent).toContain("sees only that conversation's files");
    await act(async () => {
      fireEvent.click(dialog().getByRole("button", { name: "Add server" }));
    });
    await waitFor(() => expect(puts(calls)).toHaveLength(1));
    const sent = puts(calls)[0] as { servers: Record<string, { sandboxed: boolean; args: string[] }> };
    expect(sent.servers["clock"]?.sandboxed).toBe(true);
    expect(sent.servers["clock"]?.args).toEqual(["-m", "mcp_server_time"]);
  });

  it("refuses a name the server would refuse, and one already taken, without sending", async () => {
    const calls = serve("admin", [everything], { config });
    renderPage();
    fireEvent.click(await screen.findByRole("button", { name: "Add server" }));
    type("Name", "my server");
    type("Command", "x");
    await act(async () => {
      fireEvent.click(dialog().getByRole("button", { name: "Add server" }));
    });
    expect(dialog().getByTestId("mcp-form-error").textContent).toBe("The name is 1–32 letters, digits, - or _.");
    type("Name", "everything");
    await act(async () => {
      fireEvent.click(dialog().getByRole("button", { name: "Add server" }));
    });
    await waitFor(() =>
      expect(dialog().getByTestId("mcp-form-error").textContent).toBe("A server named “everything” exists already."),
    );
    expect(puts(calls)).toHaveLength(0);
  });

  it("edits a server: hidden values kept as null, a retyped one sent, a removed one left out", async () => {
    const calls = serve("admin", [everything, broken], { config });
    renderPage();
    fireEvent.click(await screen.findByRole("button", { name: "Edit everything" }));
    expect(dialog().getByRole("heading", { name: "Edit “everything”" })).toBeTruthy();
    // No name field for an existing server; the values are hidden, showing what they use.
    const key = await dialog().findByLabelText("New value of API_KEY");
    expect(dialog().queryByLabelText("Name")).toBeNull();
    expect((key as HTMLInputElement).value).toBe("");
    expect((key as HTMLInputElement).placeholder).toBe("hidden (uses $EVERYTHING_KEY)");
    expect(input("New value of DEBUG").placeholder).toBe("hidden");
    expect(input("Command").value).toBe("npx");
    expect((dialog().getByLabelText("Arguments (one per line)") as HTMLTextAreaElement).value).toBe(
      "-y\n@modelcontextprotocol/server-everything",
    );
    expect(input("Never these tools (comma separated)").value).toBe("get-env");
    type("New value of DEBUG", "1");
    fireEvent.click(dialog().getByRole("button", { name: "Remove OLD" }));
    type("Description", "");
    await act(async () => {
      fireEvent.click(dialog().getByRole("button", { name: "Save" }));
    });
    await waitFor(() => expect(puts(calls)).toHaveLength(1));
    const sent = puts(calls)[0]!;
    expect(sent.servers["github"]).toEqual(keptGithub);
    expect(sent.servers["everything"]).toEqual({
      transport: "stdio",
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-everything"],
      env: { API_KEY: null, DEBUG: "1" },
      url: null,
      headers: {},
      enabled: true,
      description: null,
      eager: false,
      sandboxed: false,
      init_timeout_secs: 45,
      call_timeout_secs: 120,
      allow_tools: [],
      deny_tools: ["get-env"],
    });
    expect(await screen.findByText("Saved “everything”: it starts again on next use.")).toBeTruthy();
  });

  it("edits an HTTP server's URL and headers, without the stdio warning", async () => {
    const calls = serve("admin", [everything, broken], { config });
    renderPage();
    fireEvent.click(await screen.findByRole("button", { name: "Edit github" }));
    const header = await dialog().findByLabelText("New value of Authorization");
    expect((header as HTMLInputElement).placeholder).toBe("hidden (uses $GITHUB_TOKEN)");
    expect(dialog().queryByTestId("mcp-stdio-warning")).toBeNull();
    expect(input("URL").value).toBe("https://mcp.example.com/mcp");
    type("URL", "https://mcp.example.com/v2");
    await act(async () => {
      fireEvent.click(dialog().getByRole("button", { name: "Save" }));
    });
    await waitFor(() => expect(puts(calls)).toHaveLength(1));
    const sent = puts(calls)[0]!;
    expect(sent.servers["everything"]).toEqual(keptEverything);
    expect(sent.servers["github"]).toMatchObject({
      transport: "streamable_http",
      url: "https://mcp.example.com/v2",
      headers: { Authorization: null },
      command: null,
      env: {},
    });
  });

  it("shows the server's refusal in the form and keeps it open", async () => {
    const message = "mcp server 'everything': unknown field `foo`";
    const calls = serve("admin", [everything], { config, putError: { status: 422, message } });
    renderPage();
    fireEvent.click(await screen.findByRole("button", { name: "Edit everything" }));
    await dialog().findByLabelText("New value of API_KEY");
    await act(async () => {
      fireEvent.click(dialog().getByRole("button", { name: "Save" }));
    });
    expect((await dialog().findByTestId("mcp-form-error")).textContent).toBe(message);
    expect(screen.getByRole("dialog")).toBeTruthy();
    expect(puts(calls)).toHaveLength(1);
  });

  it("disables and enables a server, changing only its enabled flag", async () => {
    const off = { ...lazy, name: "github", state: "disabled" as const };
    const disabledConfig: McpConfigView = {
      servers: { ...config.servers, github: { ...config.servers["github"]!, enabled: false } },
    };
    const calls = serve("admin", [everything, off], { config: disabledConfig });
    renderPage();
    await waitFor(() => expect(screen.getAllByTestId("mcp-server")).toHaveLength(2));
    expect(within(card("github")).queryByRole("button", { name: "Disable github" })).toBeNull();
    await act(async () => {
      fireEvent.click(within(card("everything")).getByRole("button", { name: "Disable everything" }));
    });
    await waitFor(() => expect(puts(calls)).toHaveLength(1));
    expect(puts(calls)[0]).toEqual({
      servers: { everything: { ...keptEverything, enabled: false }, github: { ...keptGithub, enabled: false } },
    });
    expect(await screen.findByText("Disabled “everything”.")).toBeTruthy();
    await act(async () => {
      fireEvent.click(within(card("github")).getByRole("button", { name: "Enable github" }));
    });
    await waitFor(() => expect(puts(calls)).toHaveLength(2));
    expect(puts(calls)[1]).toEqual({ servers: { everything: keptEverything, github: keptGithub } });
  });

  it("removes a server after confirmation", async () => {
    const calls = serve("admin", [everything, broken], { config });
    renderPage();
    fireEvent.click(await within(await waitFor(() => card("github"))).findByRole("button", { name: "Remove github" }));
    const confirm = within(screen.getByRole("alertdialog"));
    expect(confirm.getByText(/“github” will be stopped and removed/)).toBeTruthy();
    expect(puts(calls)).toHaveLength(0);
    await act(async () => {
      fireEvent.click(confirm.getByRole("button", { name: "Remove" }));
    });
    await waitFor(() => expect(puts(calls)).toHaveLength(1));
    expect(puts(calls)[0]).toEqual({ servers: { everything: keptEverything } });
    expect(await screen.findByText("Removed “github”.")).toBeTruthy();
    await waitFor(() => expect(screen.queryByRole("alertdialog")).toBeNull());
  });

  it("shows people who are not admins none of the configuration buttons", async () => {
    const calls = serve("user", [everything, broken], { config });
    renderPage();
    await waitFor(() => expect(screen.getAllByTestId("mcp-server")).toHaveLength(2));
    expect(screen.queryByRole("button", { name: "Add server" })).toBeNull();
    expect(screen.queryByRole("button", { name: /^(Edit|Disable|Enable|Remove) / })).toBeNull();
    expect(calls.some((c) => c.path === "/api/mcp/config")).toBe(false);
  });
});
