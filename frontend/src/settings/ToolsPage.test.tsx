// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { MemoryRouter } from "react-router-dom";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { McpServer, Role } from "../api/types";
import { AuthGate } from "../auth/auth";
import { ToastProvider } from "../components/Toasts";
import { json } from "../test/agents";
import { methodOf, pathOf, requestOf } from "../test/fetch";
import { ToolsPage } from "./ToolsPage";

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
  options: { restart?: McpServer | { status: number; message: string }; after?: McpServer[] } = {},
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
