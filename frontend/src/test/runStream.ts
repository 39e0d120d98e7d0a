// A thread whose run streams what a test writes, for tests of what streams show.
import { vi } from "vitest";
import { json } from "./agents";
import { pathOf } from "./fetch";

/** A run's SSE stream that the test writes to (the session reads it asynchronously: wait
 * for what an event changes). */
export interface Wire {
  send: (event: string, data: unknown) => void;
  end: () => void;
}

/** Replaces `fetch`: the run streams what the test sends; the stored state is `final`. */
export function serveRun(final: Record<string, unknown> = { messages: [] }): Promise<Wire> {
  return new Promise((ready) => {
    vi.stubGlobal(
      "fetch",
      vi.fn(async (input: RequestInfo | URL) => {
        const path = pathOf(input);
        if (path.endsWith("/runs/stream")) {
          const encoder = new TextEncoder();
          const stream = new ReadableStream<Uint8Array>({
            start(controller) {
              const write = (event: string, data: unknown) =>
                controller.enqueue(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`));
              write("metadata", { run_id: "run-1", attempt: 1 });
              ready({
                send: write,
                end: () => {
                  write("end", null);
                  controller.close();
                },
              });
            },
          });
          return new Response(stream, { status: 200, headers: { "Content-Type": "text/event-stream" } });
        }
        if (path.endsWith("/state")) return json({ values: final, next: [], checkpoint: null });
        if (path.endsWith("/history")) return json([]);
        if (path === "/api/threads/search") return json([]);
        return json({ error: { code: "not_found", message: path } }, 404);
      }),
    );
  });
}
