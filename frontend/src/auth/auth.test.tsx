// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { pathOf, requestOf } from "../test/fetch";
import { AuthGate, useAuth } from "./auth";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

function Inside() {
  const { me } = useAuth();
  return <p>signed in as {me.email}</p>;
}

describe("AuthGate", () => {
  it("asks for a password, shows the server's refusal, then lets the person in", async () => {
    let signedIn = false;
    const logins: unknown[] = [];
    vi.stubGlobal(
      "fetch",
      vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
        const path = pathOf(input);
        if (path === "/api/auth/status") return json(200, { mode: "password", setup_required: false });
        if (path === "/api/auth/me") {
          return signedIn
            ? json(200, { id: "u1", email: "ann@example.com", role: "user" })
            : json(401, { error: { code: "unauthenticated", message: "sign in" } });
        }
        if (path === "/api/auth/login") {
          const body = (await requestOf(input, init).json()) as { password: string };
          logins.push(body);
          if (body.password !== "right-password") {
            return json(401, { error: { code: "bad_credentials", message: "the email or password is wrong" } });
          }
          signedIn = true;
          return json(200, { user: { id: "u1", email: "ann@example.com", role: "user" }, csrf_token: "c" });
        }
        return json(404, { error: { code: "not_found", message: path } });
      }),
    );
    render(
      <AuthGate>
        <Inside />
      </AuthGate>,
    );
    await screen.findByRole("heading", { name: "Sign in to Antler" });
    fireEvent.change(screen.getByLabelText("Email"), { target: { value: "ann@example.com" } });
    fireEvent.change(screen.getByLabelText("Password"), { target: { value: "wrong" } });
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect((await screen.findByRole("alert")).textContent).toContain("email or password is wrong");
    fireEvent.change(screen.getByLabelText("Password"), { target: { value: "right-password" } });
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }));
    await screen.findByText("signed in as ann@example.com");
    expect(logins).toHaveLength(2);
  });

  it("opens at once when sign-in is off", async () => {
    vi.stubGlobal(
      "fetch",
      vi.fn(async (input: RequestInfo | URL) =>
        pathOf(input) === "/api/auth/status"
          ? json(200, { mode: "none", setup_required: false })
          : json(200, { id: "local", email: "", role: "admin" }),
      ),
    );
    render(
      <AuthGate>
        <Inside />
      </AuthGate>,
    );
    await waitFor(() => expect(screen.getByText(/signed in as/)).toBeTruthy());
  });
});
