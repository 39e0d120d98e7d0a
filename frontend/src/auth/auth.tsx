// Who is signed in. The gate shows sign-in (or the first-run setup) until the server
// accepts the session, and again whenever an API call answers 401.
import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from "react";
import { api } from "../api/client";
import { SIGNED_OUT_EVENT } from "../api/csrf";
import { ApiError, errorMessage } from "../api/http";
import type { AuthStatus, Me } from "../api/types";
import { ErrorState, Spinner } from "../components/States";
import { useT } from "../i18n";
import { SetupPage } from "./SetupPage";
import { SignInPage } from "./SignInPage";

export interface Auth {
  me: Me;
  /** `auth.mode` is `none`: nobody signs in. */
  open: boolean;
  signOut: () => Promise<void>;
}

const AuthContext = createContext<Auth | undefined>(undefined);

/** The signed-in account (inside the gate). */
export function useAuth(): Auth {
  const auth = useContext(AuthContext);
  if (!auth) throw new Error("useAuth outside AuthGate");
  return auth;
}

/** The signed-in account, or undefined outside the gate (components shown in both). */
export function useOptionalAuth(): Auth | undefined {
  return useContext(AuthContext);
}

type State =
  | { kind: "loading" }
  | { kind: "error"; message: string }
  | { kind: "signed-out"; status: AuthStatus }
  | { kind: "signed-in"; me: Me; open: boolean };

export function AuthGate({ children }: { children: ReactNode }) {
  const [state, setState] = useState<State>({ kind: "loading" });
  const t = useT();
  const load = useCallback(async () => {
    try {
      const status = await api.authStatus();
      try {
        const me = await api.me();
        setState({ kind: "signed-in", me, open: status.mode === "none" });
      } catch (e) {
        if (e instanceof ApiError && e.status === 401) setState({ kind: "signed-out", status });
        else throw e;
      }
    } catch (e) {
      setState({ kind: "error", message: errorMessage(e) });
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);
  useEffect(() => {
    const onSignedOut = () => {
      setState((s) => (s.kind === "signed-in" && !s.open ? { kind: "loading" } : s));
      void load();
    };
    window.addEventListener(SIGNED_OUT_EVENT, onSignedOut);
    return () => window.removeEventListener(SIGNED_OUT_EVENT, onSignedOut);
  }, [load]);
  const signOut = useCallback(async () => {
    try {
      await api.signOut();
    } finally {
      await load();
    }
  }, [load]);

  switch (state.kind) {
    case "loading":
      return <Spinner label={t("auth.connecting")} />;
    case "error":
      return <ErrorState message={state.message} onRetry={() => void load()} />;
    case "signed-out": {
      const token = new URLSearchParams(window.location.search).get("token");
      if (state.status.setup_required && window.location.pathname === "/setup" && token) {
        return <SetupPage token={token} onDone={() => void load()} />;
      }
      return <SignInPage setupRequired={state.status.setup_required} onDone={() => void load()} />;
    }
    case "signed-in":
      return (
        <AuthContext.Provider value={{ me: state.me, open: state.open, signOut }}>{children}</AuthContext.Provider>
      );
  }
}
