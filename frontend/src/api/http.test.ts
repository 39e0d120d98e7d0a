import { afterEach, describe, expect, it, vi } from "vitest";
import { api, downloadUrl } from "./client";
import { pathOf, requestOf } from "../test/fetch";
import { ApiError, errorFrom, errorMessage, request } from "./http";

function respond(status: number, body: string, contentType = "application/json") {
  return vi.fn(async () => new Response(body, { status, headers: { "content-type": contentType } }));
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("API errors", () => {
  it("carry the envelope's code, message and findings", async () => {
    const body = JSON.stringify({
      error: {
        code: "invalid_archive",
        message: "the archive was refused",
        details: { findings: [{ rule: "unsafe-path", path: "../evil.sh", message: "leaves the skill folder" }] },
      },
    });
    const e = await errorFrom(new Response(body, { status: 400 }));
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({ status: 400, code: "invalid_archive", message: "the archive was refused" });
    expect(e.findings).toEqual([{ rule: "unsafe-path", path: "../evil.sh", message: "leaves the skill folder" }]);
  });

  it("fall back to the status for bodies that are not the envelope", async () => {
    const e = await errorFrom(new Response("<html>bad gateway</html>", { status: 502, statusText: "Bad Gateway" }));
    expect(e).toMatchObject({ status: 502, code: "http_error", message: "Bad Gateway" });
    expect(e.findings).toEqual([]);
    const plain = await errorFrom(new Response("upstream timed out", { status: 504 }));
    expect(plain.message).toBe("HTTP 504: upstream timed out");
  });

  it("are thrown by request with JSON bodies sent and parsed", async () => {
    const fetchMock = respond(409, JSON.stringify({ error: { code: "skill_exists", message: "already installed" } }));
    vi.stubGlobal("fetch", fetchMock);
    await expect(api.installFromThread({ thread_id: "t", path: "/mnt/user-data/outputs/a.skill" })).rejects.toMatchObject({
      status: 409,
      code: "skill_exists",
    });
    const sent = requestOf(...(fetchMock.mock.calls[0] as unknown as [RequestInfo, RequestInit?]));
    expect(pathOf(sent)).toBe("/api/skills/install");
    expect(sent.method).toBe("POST");
    expect(await sent.json()).toEqual({ thread_id: "t", path: "/mnt/user-data/outputs/a.skill" });
    expect(sent.headers.get("content-type")).toBe("application/json");
  });

  it("report a network failure clearly and answer undefined for 204", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => Promise.reject(new TypeError("Failed to fetch"))));
    await expect(request("/health")).rejects.toMatchObject({ code: "network_error", status: 0 });
    vi.stubGlobal("fetch", vi.fn(async () => new Response(null, { status: 204 })));
    await expect(api.deleteThread("t")).resolves.toBeUndefined();
  });

  it("turn anything into a message", () => {
    expect(errorMessage(new ApiError(404, "not_found", "no skill named 'x'"))).toBe("no skill named 'x'");
    expect(errorMessage("plain")).toBe("plain");
    expect(errorMessage(42)).toBe("Something went wrong.");
  });
});

describe("URLs", () => {
  it("ask for downloads", () => {
    expect(downloadUrl("/a/b")).toBe("/a/b?download=true");
    expect(downloadUrl("/a/b?x=1")).toBe("/a/b?x=1&download=true");
  });

  it("send skill uploads as multipart with the overwrite flag", async () => {
    const fetchMock = respond(200, JSON.stringify({ skill: { name: "x" }, replaced: true, warnings: [] }));
    vi.stubGlobal("fetch", fetchMock);
    await api.uploadSkill(new File(["zip"], "x.skill"), { overwrite: true });
    const form = await requestOf(...(fetchMock.mock.calls[0] as unknown as [RequestInfo, RequestInit?])).formData();
    expect(form.get("overwrite")).toBe("true");
    expect(form.get("enable")).toBe("true");
    expect((form.get("file") as File).name).toBe("x.skill");
  });
});
