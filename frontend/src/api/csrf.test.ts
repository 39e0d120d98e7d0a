import { describe, expect, it } from "vitest";
import { csrfToken, withCsrf } from "./csrf";

describe("csrf", () => {
  it("reads the token cookie by its exact name", () => {
    expect(csrfToken("x_antler_csrf=no; antler_csrf=abc; other=1")).toBe("abc");
    expect(csrfToken("other=1")).toBeUndefined();
    expect(csrfToken("antler_csrf=")).toBeUndefined();
  });

  it("adds the header to unsafe same-origin requests only", () => {
    const origin = "http://localhost:8000";
    const post = withCsrf(new Request(`${origin}/api/threads`, { method: "POST", body: "{}" }), origin, "t1");
    expect(post.headers.get("x-csrf-token")).toBe("t1");
    const get = withCsrf(new Request(`${origin}/api/threads`), origin, "t1");
    expect(get.headers.get("x-csrf-token")).toBeNull();
    const elsewhere = withCsrf(new Request("http://model.example/v1", { method: "POST", body: "{}" }), origin, "t1");
    expect(elsewhere.headers.get("x-csrf-token")).toBeNull();
    const none = withCsrf(new Request(`${origin}/api/threads`, { method: "DELETE" }), origin, undefined);
    expect(none.headers.get("x-csrf-token")).toBeNull();
  });
});
