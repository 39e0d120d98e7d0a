// @vitest-environment jsdom
import { act, cleanup, renderHook, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError } from "../api/http";
import { useResource } from "./useResource";

afterEach(cleanup);

/** A load the test resolves by hand, recording whether it was aborted. */
function deferred<T>() {
  const calls: { key: string; signal: AbortSignal; resolve: (v: T) => void; reject: (e: unknown) => void }[] = [];
  const load = (key: string) => (signal: AbortSignal) =>
    new Promise<T>((resolve, reject) => calls.push({ key, signal, resolve, reject }));
  return { calls, load };
}

describe("useResource", () => {
  it("aborts the previous load and ignores its late answer", async () => {
    const { calls, load } = deferred<string>();
    const { result, rerender } = renderHook(({ k }) => useResource(k, load(k)), { initialProps: { k: "a" } });
    expect(result.current.loading).toBe(true);
    rerender({ k: "b" });
    expect(calls[0]?.signal.aborted).toBe(true);
    act(() => calls[1]?.resolve("B"));
    await waitFor(() => expect(result.current.data).toBe("B"));
    act(() => calls[0]?.resolve("A (stale)"));
    await new Promise((r) => setTimeout(r, 10));
    expect(result.current.data).toBe("B");
  });

  it("surfaces the error envelope's message and keeps the scope's last data", async () => {
    const { calls, load } = deferred<string>();
    const { result, rerender } = renderHook(({ k }) => useResource(k, load(k), "thread-1"), {
      initialProps: { k: "v1" },
    });
    act(() => calls[0]?.resolve("files v1"));
    await waitFor(() => expect(result.current.data).toBe("files v1"));
    rerender({ k: "v2" });
    expect(result.current.data).toBe("files v1");
    act(() => calls[1]?.reject(new ApiError(404, "not_found", "no thread 't'")));
    await waitFor(() => expect(result.current.error).toBe("no thread 't'"));
    expect(result.current.data).toBe("files v1");
  });

  it("retries with reload and aborts on unmount", async () => {
    const { calls, load } = deferred<number>();
    const { result, unmount } = renderHook(() => useResource("x", load("x")));
    act(() => calls[0]?.reject(new Error("down")));
    await waitFor(() => expect(result.current.error).toBe("down"));
    act(() => result.current.reload());
    expect(calls).toHaveLength(2);
    act(() => calls[1]?.resolve(7));
    await waitFor(() => expect(result.current.data).toBe(7));
    act(() => result.current.reload());
    unmount();
    expect(calls[2]?.signal.aborted).toBe(true);
  });

  it("loads nothing without a key", () => {
    const { calls, load } = deferred<string>();
    const { result } = renderHook(() => useResource(null, load("none")));
    expect(calls).toHaveLength(0);
    expect(result.current).toMatchObject({ data: null, loading: false, error: null });
  });
});
