// @vitest-environment jsdom
// Edit, Regenerate and the version switcher, from the click to the request the server gets:
// a fake server answers state and history from a FakeThread and records run bodies.
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ThreadState } from "../api/types";
import { ThreadSession } from "../state/session";
import { useStore } from "../state/store";
import { methodOf, pathOf, requestOf } from "../test/fetch";
import { FakeThread, ai, human, tool } from "../test/history";
import { MessageList } from "./MessageList";
import { versionActions } from "./versions";

interface RunBody {
  input: { messages: { role: string; content: unknown; id: string }[] } | null;
  checkpoint?: { checkpoint_id: string; checkpoint_ns?: string };
  assistant_id: string;
}

const json = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { "Content-Type": "application/json" } });

/**
 * Serves the thread; a run is recorded, answered with an SSE stream that ends when `finish`
 * is called, and added to the thread as the server would (from its checkpoint, on a branch).
 */
function serve(
  t: FakeThread,
  options: { history?: (h: ThreadState[]) => ThreadState[]; historyHeld?: () => Promise<void> } = {},
) {
  const runs: RunBody[] = [];
  let finish = () => {};
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const path = pathOf(input);
      const method = methodOf(input, init);
      if (path.endsWith("/state")) return json(t.history()[0]);
      if (path.endsWith("/history")) {
        await options.historyHeld?.();
        return json((options.history ?? ((h) => h))(t.history()));
      }
      if (path.endsWith("/runs") && method === "GET") return json([]);
      if (path === "/api/threads/search") return json([]);
      if (path.endsWith("/runs/stream")) {
        const body = (await requestOf(input, init).json()) as RunBody;
        runs.push(body);
        const n = runs.length;
        const sent = body.input?.messages[0];
        const from = body.checkpoint?.checkpoint_id;
        t.run({
          ...(from ? { from } : {}),
          ...(sent ? { human: { type: "human", id: sent.id, content: sent.content } } : {}),
          replies: [ai(`answer-${n}`, `answer ${n}`)],
        });
        const encoder = new TextEncoder();
        const stream = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(encoder.encode(`event: metadata\ndata: {"run_id":"run-${n}","attempt":1}\n\n`));
            finish = () => {
              controller.enqueue(encoder.encode("event: end\ndata: null\n\n"));
              controller.close();
            };
          },
        });
        return new Response(stream, { status: 200, headers: { "Content-Type": "text/event-stream" } });
      }
      return new Response("{}", { status: 404 });
    }),
  );
  return { runs, finish: () => act(async () => finish()) };
}

function Chat({ session }: { session: ThreadSession }) {
  const state = useStore(session.store);
  return (
    <MessageList
      state={state}
      actions={{ onOpenFile: () => undefined, onAnswer: () => undefined, busy: state.streaming }}
      versions={versionActions(session, state, false)}
      onRetry={() => session.retry()}
    />
  );
}

async function open(t: FakeThread): Promise<ThreadSession> {
  const session = new ThreadSession(t.threadId);
  await act(() => session.load());
  render(<Chat session={session} />);
  return session;
}

const humanTexts = () => screen.getAllByTestId("human-message").map((e) => e.querySelector(".bubble")?.textContent);
const answers = () => screen.queryAllByTestId("assistant-text").map((e) => e.textContent?.trim());
const texts = () => [...humanTexts(), ...answers()];
const parentOf = (t: FakeThread, id: string) => t.firstHolding(id)?.parent_checkpoint?.checkpoint_id;

/** Two turns; the second answer came after a tool call. */
function thread(): FakeThread {
  const t = new FakeThread();
  t.run({ human: human("h1", "hi"), replies: [ai("a1", "hello")] });
  t.run({ human: human("h2", "list files"), replies: [ai("a2", "", ["c1"]), tool("t1", "c1"), ai("a3", "two files")] });
  return t;
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("Edit", () => {
  it("runs the edited text from the checkpoint before the message, then shows the new version 2 / 2", async () => {
    const t = thread();
    const server = serve(t);
    await open(t);
    const from = parentOf(t, "h2");
    expect(humanTexts()).toEqual(["hi", "list files"]);

    fireEvent.click(screen.getAllByRole("button", { name: "Edit message" })[1] as HTMLElement);
    const box = screen.getByRole("textbox", { name: "Edited message" }) as HTMLTextAreaElement;
    expect(box.value).toBe("list files");
    fireEvent.change(box, { target: { value: "list all files" } });
    fireEvent.keyDown(box, { key: "Enter" });

    await waitFor(() => expect(server.runs).toHaveLength(1));
    const body = server.runs[0];
    expect(body?.input?.messages).toEqual([{ role: "user", content: "list all files", id: expect.any(String) }]);
    expect(body?.checkpoint).toEqual({ checkpoint_id: from, checkpoint_ns: "" });
    expect(body?.assistant_id).toBe("lead_agent");
    // At once: the conversation up to the edited message, then the new text; no actions while it runs.
    expect(humanTexts()).toEqual(["hi", "list all files"]);
    expect(answers()).toEqual(["hello"]);
    expect(screen.queryByRole("button", { name: "Edit message" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Regenerate" })).toBeNull();

    await server.finish();
    await waitFor(() => expect(screen.getByTestId("branch-switcher").textContent).toContain("2 / 2"));
    expect(humanTexts()).toEqual(["hi", "list all files"]);
    expect(answers()).toEqual(["hello", "answer 1"]);
    // The switcher sits on the edited message.
    const edited = screen.getAllByTestId("human-message")[1] as HTMLElement;
    expect(within(edited).getByTestId("branch-switcher")).toBeTruthy();
  });

  it("keeps the message as it was on Escape, and saves nothing", async () => {
    const t = thread();
    const server = serve(t);
    await open(t);
    fireEvent.click(screen.getAllByRole("button", { name: "Edit message" })[0] as HTMLElement);
    const box = screen.getByRole("textbox", { name: "Edited message" });
    expect(document.activeElement).toBe(box);
    fireEvent.change(box, { target: { value: "changed" } });
    fireEvent.keyDown(box, { key: "Escape" });
    expect(screen.queryByRole("textbox", { name: "Edited message" })).toBeNull();
    expect(humanTexts()).toEqual(["hi", "list files"]);
    expect(document.activeElement).toBe(screen.getAllByRole("button", { name: "Edit message" })[0]);
    // Save is a button too; Cancel leaves the same way.
    fireEvent.click(screen.getAllByRole("button", { name: "Edit message" })[0] as HTMLElement);
    fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    expect(server.runs).toHaveLength(0);
  });

  it("saves with the Save button, keeping the files the message came with", async () => {
    const t = new FakeThread();
    const withFile = "summarize\n\n<uploaded_files>\n- /mnt/user-data/uploads/a.csv\n</uploaded_files>";
    t.run({ human: human("h1", withFile), replies: [ai("a1", "done")] });
    const server = serve(t);
    await open(t);
    fireEvent.click(screen.getByRole("button", { name: "Edit message" }));
    const box = screen.getByRole("textbox", { name: "Edited message" }) as HTMLTextAreaElement;
    expect(box.value).toBe("summarize");
    fireEvent.change(box, { target: { value: "plot it" } });
    fireEvent.click(screen.getByRole("button", { name: "Save" }));
    await waitFor(() => expect(server.runs).toHaveLength(1));
    expect(server.runs[0]?.input?.messages[0]?.content).toBe(
      "plot it\n\n<uploaded_files>\n- /mnt/user-data/uploads/a.csv\n</uploaded_files>",
    );
    expect(server.runs[0]?.checkpoint?.checkpoint_id).toBe(parentOf(t, "h1"));
    await server.finish();
  });
});

describe("Regenerate", () => {
  it("runs the last answer of a turn again with no input, from the state after its tool result", async () => {
    const t = thread();
    const server = serve(t);
    await open(t);
    const from = parentOf(t, "a3");
    expect(t.get(from ?? "").values.messages?.at(-1)?.id).toBe("t1");
    // One per reply.
    const buttons = screen.getAllByRole("button", { name: "Regenerate" });
    expect(buttons).toHaveLength(2);
    fireEvent.click(buttons[1] as HTMLElement);

    await waitFor(() => expect(server.runs).toHaveLength(1));
    expect(server.runs[0]?.input).toBeNull();
    expect(server.runs[0]?.checkpoint).toEqual({ checkpoint_id: from, checkpoint_ns: "" });
    // The tool call stays; the old answer goes while the new one comes.
    expect(answers()).toEqual(["hello"]);
    expect(screen.getByTestId("tool-card").getAttribute("data-tool")).toBe("bash");

    await server.finish();
    await waitFor(() => expect(answers()).toEqual(["hello", "answer 1"]));
    // Right before the answer that has versions, after the tool call that has one.
    const switcher = screen.getByTestId("branch-switcher");
    expect(switcher.textContent).toContain("2 / 2");
    expect(switcher.parentElement?.nextElementSibling?.getAttribute("data-testid")).toBe("assistant-text");
    expect(switcher.parentElement?.previousElementSibling?.getAttribute("data-testid")).toBe("tool-card");
  });

  it("puts the switcher of a regenerated reply below it, next to Regenerate", async () => {
    const t = thread();
    const server = serve(t);
    await open(t);
    fireEvent.click(screen.getAllByRole("button", { name: "Regenerate" })[0] as HTMLElement);
    await waitFor(() => expect(server.runs).toHaveLength(1));
    expect(server.runs[0]).toMatchObject({ input: null, checkpoint: { checkpoint_id: parentOf(t, "a1") } });
    await server.finish();
    await waitFor(() => expect(answers()).toEqual(["answer 1"]));
    const reply = screen.getAllByRole("article", { name: "Assistant" })[0] as HTMLElement;
    const footer = reply.lastElementChild as HTMLElement;
    expect(within(footer).getByTestId("branch-switcher").textContent).toContain("2 / 2");
    expect(within(footer).getByRole("button", { name: "Regenerate" })).toBeTruthy();
    // The later turn belonged to the first version.
    expect(humanTexts()).toEqual(["hi"]);
    fireEvent.click(screen.getByRole("button", { name: "Previous version" }));
    expect(answers()).toEqual(["hello", "two files"]);
    expect(humanTexts()).toEqual(["hi", "list files"]);
  });
});

describe("the version switcher", () => {
  function edited(): FakeThread {
    const t = new FakeThread();
    t.run({ human: human("h1", "first try"), replies: [ai("a1", "answer to the first")] });
    t.run({ from: parentOf(t, "h1"), human: human("h1b", "second try"), replies: [ai("a1b", "answer to the second")] });
    return t;
  }

  it("shows the other version from the history without a run, and a send there continues it", async () => {
    const t = edited();
    const server = serve(t);
    const session = await open(t);
    await waitFor(() => expect(screen.getByTestId("branch-switcher").textContent).toContain("2 / 2"));
    expect(texts()).toEqual(["second try", "answer to the second"]);
    expect((screen.getByRole("button", { name: "Next version" }) as HTMLButtonElement).disabled).toBe(true);

    fireEvent.click(screen.getByRole("button", { name: "Previous version" }));
    expect(texts()).toEqual(["first try", "answer to the first"]);
    expect(screen.getByTestId("branch-switcher").textContent).toContain("1 / 2");
    expect((screen.getByRole("button", { name: "Previous version" }) as HTMLButtonElement).disabled).toBe(true);
    expect(server.runs).toHaveLength(0);

    // A message sent on the older version continues it from its last checkpoint.
    const head = t.firstHolding("a1")?.checkpoint?.checkpoint_id;
    act(() => session.send("and then?"));
    await waitFor(() => expect(server.runs).toHaveLength(1));
    expect(server.runs[0]?.checkpoint).toEqual({ checkpoint_id: head, checkpoint_ns: "" });
    expect(humanTexts()).toEqual(["first try", "and then?"]);
    // While it runs the versions stay put.
    expect((screen.getByRole("button", { name: "Next version" }) as HTMLButtonElement).disabled).toBe(true);
    await server.finish();
    await waitFor(() => expect(answers()).toEqual(["answer to the first", "answer 1"]));
    expect(screen.getByTestId("branch-switcher").textContent).toContain("1 / 2");

    fireEvent.click(screen.getByRole("button", { name: "Next version" }));
    expect(texts()).toEqual(["second try", "answer to the second"]);
  });

  it("sends without a checkpoint after a run until the history is read again (that run's checkpoint is the newest)", async () => {
    const t = edited();
    let release = () => {};
    let held = false;
    const server = serve(t, { historyHeld: () => (held ? new Promise((r) => (release = r)) : Promise.resolve()) });
    const session = await open(t);
    fireEvent.click(await screen.findByRole("button", { name: "Previous version" }));
    held = true;
    act(() => session.send("and then?"));
    await waitFor(() => expect(server.runs).toHaveLength(1));
    expect(server.runs[0]?.checkpoint).toBeDefined();
    await server.finish();
    await waitFor(() => expect(session.store.get().streaming).toBe(false));
    act(() => session.send("go on"));
    await waitFor(() => expect(server.runs).toHaveLength(2));
    expect(server.runs[1]?.checkpoint).toBeUndefined();
    release();
    await server.finish();
  });

  it("sends without a checkpoint on the newest version", async () => {
    const t = edited();
    const server = serve(t);
    const session = await open(t);
    act(() => session.send("more"));
    await waitFor(() => expect(server.runs).toHaveLength(1));
    expect(server.runs[0]?.checkpoint).toBeUndefined();
    await server.finish();
  });
});

describe("an older server", () => {
  it("shows the state with no Edit, Regenerate or switcher when the history has no checkpoint metadata", async () => {
    const t = thread();
    t.run({ from: parentOf(t, "a3"), replies: [ai("a3b", "2 files")] });
    serve(t, { history: (h) => h.map((s) => ({ ...s, metadata: { step: s.metadata["step"] } })) });
    await open(t);
    expect(answers()).toEqual(["hello", "2 files"]);
    expect(screen.queryByRole("button", { name: "Edit message" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Regenerate" })).toBeNull();
    expect(screen.queryByTestId("branch-switcher")).toBeNull();
  });
});
