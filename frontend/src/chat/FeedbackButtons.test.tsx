// @vitest-environment jsdom
// Thumbs under an answer: the conversation's ratings are read once and shown pressed; a click
// rates (and opens the optional comment box), a click on the pressed thumb takes the rating
// back, a comment is sent with the rating, and a refused change is undone. A finished answer
// shows them for the run that wrote it (from the checkpoint history), a streaming one not.
import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { MemoryRouter, Route, Routes } from "react-router-dom";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { branchView } from "../lib/branches";
import { type AssistantGroup, groupMessages } from "../lib/grouping";
import { methodOf, pathOf, requestOf } from "../test/fetch";
import { FakeThread, ai, human } from "../test/history";
import { AssistantBlock } from "./AssistantBlock";
import { type Feedback, resetFeedback } from "./feedback";
import { FeedbackButtons } from "./FeedbackButtons";
import type { VersionActions } from "./versions";

const stored = (runId: string, rating: Feedback["rating"], comment: string | null = null): Feedback => ({
  run_id: runId,
  thread_id: "t-1",
  rating,
  comment,
  created_at: "2026-01-05T10:00:00Z",
  updated_at: "2026-01-05T10:00:00Z",
});

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/** The server: `initial` ratings of thread t-1; PUT and DELETE answered (or refused with a
 * 422 when `refuse`). Returns the requests made, as "METHOD path body". */
function serve(initial: Feedback[], refuse = false): string[] {
  const asked: string[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = requestOf(input, init);
      const method = methodOf(input, init);
      const path = pathOf(input);
      const body = method === "PUT" ? await request.text() : "";
      asked.push(`${method} ${path}${body ? ` ${body}` : ""}`);
      if (method === "GET" && path === "/api/threads/t-1/feedback") return json({ feedback: initial });
      const run = path.split("/")[5] ?? "";
      if (refuse) return json({ error: { code: "invalid_feedback", message: "No." } }, 422);
      if (method === "PUT") {
        const sent = JSON.parse(body) as { rating: Feedback["rating"]; comment: string | null };
        return json(stored(run, sent.rating, sent.comment?.trim() || null));
      }
      if (method === "DELETE") return new Response(null, { status: 204 });
      return json({ error: { code: "not_found", message: "no" } }, 404);
    }),
  );
  return asked;
}

function show(runId = "run-1") {
  render(
    <MemoryRouter initialEntries={["/threads/t-1"]}>
      <Routes>
        <Route path="/threads/:threadId" element={<FeedbackButtons runId={runId} />} />
      </Routes>
    </MemoryRouter>,
  );
}

const up = () => screen.getByRole("button", { name: "Good answer" });
const down = () => screen.getByRole("button", { name: "Bad answer" });

beforeEach(() => resetFeedback());
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("FeedbackButtons", () => {
  it("shows the stored rating pressed, read once for the conversation", async () => {
    const asked = serve([stored("run-1", "down", "Too long")]);
    show();
    await waitFor(() => expect(down().getAttribute("aria-pressed")).toBe("true"));
    expect(up().getAttribute("aria-pressed")).toBe("false");
    cleanup();
    show("run-2");
    expect(up().getAttribute("aria-pressed")).toBe("false");
    expect(asked).toEqual(["GET /api/threads/t-1/feedback"]);
  });

  it("rates with a click, sends an optional comment, and takes the rating back", async () => {
    const asked = serve([]);
    show();
    await waitFor(() => expect(asked).toHaveLength(1));
    fireEvent.click(down());
    expect(down().getAttribute("aria-pressed")).toBe("true");
    await waitFor(() => expect(asked).toContain('PUT /api/threads/t-1/runs/run-1/feedback {"rating":"down","comment":null}'));

    const box = screen.getByLabelText("What went wrong? (optional)");
    fireEvent.change(box, { target: { value: "  The year is wrong. " } });
    fireEvent.click(screen.getByRole("button", { name: "Send" }));
    await waitFor(() =>
      expect(asked).toContain('PUT /api/threads/t-1/runs/run-1/feedback {"rating":"down","comment":"  The year is wrong. "}'),
    );
    await waitFor(() => expect(screen.queryByLabelText("What went wrong? (optional)")).toBeNull());

    fireEvent.click(down());
    expect(down().getAttribute("aria-pressed")).toBe("false");
    await waitFor(() => expect(asked.at(-1)).toBe("DELETE /api/threads/t-1/runs/run-1/feedback"));
    expect(screen.queryByRole("textbox")).toBeNull();
  });

  it("switches the rating and skips the comment", async () => {
    const asked = serve([stored("run-1", "down")]);
    show();
    await waitFor(() => expect(down().getAttribute("aria-pressed")).toBe("true"));
    fireEvent.click(up());
    expect(up().getAttribute("aria-pressed")).toBe("true");
    expect(down().getAttribute("aria-pressed")).toBe("false");
    expect(screen.getByLabelText("What was good about it? (optional)")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Skip" }));
    expect(screen.queryByRole("textbox")).toBeNull();
    await waitFor(() => expect(asked.at(-1)).toBe('PUT /api/threads/t-1/runs/run-1/feedback {"rating":"up","comment":null}'));
  });

  it("undoes a rating the server refuses", async () => {
    serve([], true);
    show();
    await act(async () => {
      fireEvent.click(up());
    });
    await waitFor(() => expect(up().getAttribute("aria-pressed")).toBe("false"));
  });
});

describe("the thumbs of an answer", () => {
  const versions = (thread: FakeThread): VersionActions => ({
    byMessage: branchView(thread.history()).byMessage,
    streaming: false,
    disabled: false,
    onEdit: () => undefined,
    onRegenerate: () => undefined,
    onBranch: () => undefined,
  });

  function answer(finished: boolean) {
    const thread = new FakeThread();
    thread.run({ human: human("h-1", "Hi"), replies: [ai("a-1", "Hello")] });
    thread.run({ human: human("h-2", "Again"), replies: [ai("a-2", "Hello again")] });
    const blocks = groupMessages(thread.history()[0]?.values.messages as never);
    const block = blocks[3] as AssistantGroup;
    render(
      <MemoryRouter initialEntries={["/threads/t-1"]}>
        <Routes>
          <Route
            path="/threads/:threadId"
            element={
              <AssistantBlock
                block={block}
                actions={{ onOpenFile: () => undefined, onAnswer: () => undefined, busy: false }}
                versions={versions(thread)}
                finished={finished}
              />
            }
          />
        </Routes>
      </MemoryRouter>,
    );
    // The second run's (not the first's, whose messages the state also holds).
    return String(thread.firstHolding("a-2")?.metadata["run_id"]);
  }

  it("rates the run that wrote the reply once it has finished", async () => {
    const asked = serve([stored("run-4", "up")]);
    expect(answer(true)).toBe("run-4");
    await waitFor(() => expect(up().getAttribute("aria-pressed")).toBe("true"));
    fireEvent.click(up());
    await waitFor(() => expect(asked.at(-1)).toBe("DELETE /api/threads/t-1/runs/run-4/feedback"));
  });

  it("shows none while the reply streams", () => {
    serve([]);
    answer(false);
    expect(screen.queryByRole("button", { name: "Good answer" })).toBeNull();
  });
});
