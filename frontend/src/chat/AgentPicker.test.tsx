// @vitest-environment jsdom
// The chat's Agent menu, from the pick to the run body the server gets: a fake server answers
// the chat page's calls and records every run.
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { MemoryRouter, Route, Routes } from "react-router-dom";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Shell } from "../components/Shell";
import { ToastProvider } from "../components/Toasts";
import { readSetting } from "../lib/storage";
import { AppInfoProvider } from "../state/appInfo";
import { assistantsStore, rememberAgent } from "../state/assistants";
import { threadsStore } from "../state/threads";
import { BUILT_IN_ID, agent, builtIn, json } from "../test/agents";
import { methodOf, pathOf, requestOf } from "../test/fetch";
import { FakeThread, ai, human } from "../test/history";
import { ChatPage } from "./ChatPage";

const reviewer = agent("a-1", "Reviewer");
const writer = agent("a-2", "Writer");

const threadRecord = (id: string, metadata: Record<string, unknown>) => ({
  thread_id: id,
  created_at: "2026-01-01T00:00:00Z",
  updated_at: "2026-01-01T00:00:00Z",
  metadata,
  status: "idle",
  values: {},
});

/** Serves the chat page; `id` is a thread whose last run used `threadAgent` (each test its
 * own: conversations stay loaded for the page's life). */
function serve(id: string, threadAgent?: string) {
  const runs: { assistant_id: string }[] = [];
  const t = new FakeThread(id);
  t.run({ human: human("h1", "hi"), replies: [ai("a1", "hello")] });
  const meta = threadAgent ? { assistant_id: threadAgent } : {};
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const path = pathOf(input);
      const method = methodOf(input, init);
      if (path === "/api/models") {
        const fast = { name: "fast", model: "m", supports_reasoning: false, supports_vision: false, demo: false };
        return json({ models: [fast], default: "fast" });
      }
      if (path === "/health") return json({ status: "ok", version: "0", sandbox: "docker", warnings: [] });
      if (path === "/api/skills") return json({ skills: [], errors: [] });
      if (path === "/api/assistants/search") return json([builtIn, writer, reviewer]);
      if (path === "/api/threads/search") return json([threadRecord(id, meta)]);
      if (path === "/api/threads" && method === "POST") {
        const body = (await requestOf(input, init).json()) as { thread_id: string };
        return json(threadRecord(body.thread_id, {}));
      }
      if (path === `/api/threads/${id}` && method === "GET") return json(threadRecord(id, meta));
      if (path.endsWith("/state")) return json(t.history()[0]);
      if (path.endsWith("/history")) return json(t.history());
      if (path.endsWith("/runs") && method === "GET") return json([]);
      if (path.endsWith("/runs/stream")) {
        runs.push((await requestOf(input, init).json()) as { assistant_id: string });
        const events = `event: metadata\ndata: {"run_id":"run-${runs.length}","attempt":1}\n\nevent: end\ndata: null\n\n`;
        return new Response(events, { status: 200, headers: { "Content-Type": "text/event-stream" } });
      }
      return json({ error: { code: "not_found", message: "not found" } }, 404);
    }),
  );
  return runs;
}

function renderChat(path: string) {
  render(
    <MemoryRouter initialEntries={[path]}>
      <ToastProvider>
        <AppInfoProvider>
          <Routes>
            <Route element={<Shell />}>
              <Route path="/" element={<ChatPage />} />
              <Route path="/threads/:threadId" element={<ChatPage />} />
            </Route>
          </Routes>
        </AppInfoProvider>
      </ToastProvider>
    </MemoryRouter>,
  );
}

const picker = () => screen.getByRole("combobox", { name: "Agent" }) as HTMLSelectElement;

async function sendMessage(text: string) {
  const box = screen.getByRole("textbox", { name: "Message" });
  fireEvent.change(box, { target: { value: text } });
  const send = screen.getByTestId("send-button") as HTMLButtonElement;
  await waitFor(() => expect(send.disabled).toBe(false));
  await act(async () => {
    fireEvent.click(send);
  });
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  localStorage.clear();
  assistantsStore.set({ loading: false, remembered: null });
  threadsStore.set({ threads: [], loaded: false, loading: false });
});

describe("Agent menu", () => {
  it("shows the agent of an existing thread, and a pick goes with its next run", async () => {
    const runs = serve("t-1", "a-1");
    renderChat("/threads/t-1");
    await waitFor(() => expect(picker().value).toBe("a-1"));
    // The built-in first, then the person's by name.
    expect(Array.from(picker().options).map((o) => o.textContent)).toEqual(["Antler (built-in)", "Reviewer", "Writer"]);
    await sendMessage("review this");
    await waitFor(() => expect(runs).toHaveLength(1));
    expect(runs[0]?.assistant_id).toBe("a-1");

    fireEvent.change(picker(), { target: { value: "a-2" } });
    expect(picker().value).toBe("a-2");
    await sendMessage("now write");
    await waitFor(() => expect(runs).toHaveLength(2));
    expect(runs[1]?.assistant_id).toBe("a-2");
    // The last pick is what new conversations start with.
    expect(readSetting("antler-agent")).toBe("a-2");
  });

  it("shows the built-in for a thread with no agent recorded", async () => {
    const runs = serve("t-2");
    renderChat("/threads/t-2");
    await waitFor(() => expect(picker().value).toBe(BUILT_IN_ID));
    await sendMessage("hi again");
    await waitFor(() => expect(runs).toHaveLength(1));
    // Nothing picked: the default name of the built-in.
    expect(runs[0]?.assistant_id).toBe("lead_agent");
  });

  it("starts a new conversation with the agent picked last", async () => {
    rememberAgent("a-2");
    const runs = serve("t-0");
    renderChat("/");
    await waitFor(() => expect(picker().value).toBe("a-2"));
    await sendMessage("draft a note");
    await waitFor(() => expect(runs).toHaveLength(1));
    expect(runs[0]?.assistant_id).toBe("a-2");
  });

  it("falls back to the built-in when the agent picked last no longer exists", async () => {
    rememberAgent("deleted-agent");
    const runs = serve("t-0");
    renderChat("/");
    await waitFor(() => expect(picker().value).toBe(BUILT_IN_ID));
    await sendMessage("hello");
    await waitFor(() => expect(runs).toHaveLength(1));
    expect(runs[0]?.assistant_id).toBe(BUILT_IN_ID);
  });
});
