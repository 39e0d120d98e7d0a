// Toasts: short messages in a polite live region; errors use an assertive one.
import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from "react";
import { Link } from "react-router-dom";
import { useT } from "../i18n";
import { Icon } from "./Icon";

export interface ToastInput {
  kind?: "success" | "error" | "info";
  message: string;
  link?: { to: string; label: string };
  /** Milliseconds; errors stay longer. */
  duration?: number;
}

interface Toast extends ToastInput {
  id: number;
}

const ToastContext = createContext<(t: ToastInput) => void>(() => undefined);

export function useToast(): (t: ToastInput) => void {
  return useContext(ToastContext);
}

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const next = useRef(1);
  const tr = useT();
  const dismiss = useCallback((id: number) => setToasts((ts) => ts.filter((t) => t.id !== id)), []);
  const show = useCallback(
    (t: ToastInput) => {
      const id = next.current++;
      setToasts((ts) => [...ts.slice(-3), { ...t, id }]);
      const ms = t.duration ?? (t.kind === "error" ? 8000 : 5000);
      setTimeout(() => dismiss(id), ms);
    },
    [dismiss],
  );
  const value = useMemo(() => show, [show]);
  const render = (kind: "polite" | "assertive") =>
    toasts
      .filter((t) => (t.kind === "error") === (kind === "assertive"))
      .map((t) => (
        <div key={t.id} className={`toast toast-${t.kind ?? "info"}`} data-testid="toast">
          <Icon name={t.kind === "error" ? "alert" : t.kind === "success" ? "check" : "info"} />
          <span className="toast-text">{t.message}</span>
          {t.link && (
            <Link className="toast-link" to={t.link.to} onClick={() => dismiss(t.id)}>
              {t.link.label}
            </Link>
          )}
          <button type="button" className="btn btn-ghost btn-icon btn-xs" aria-label={tr("common.dismiss")} onClick={() => dismiss(t.id)}>
            <Icon name="x" size={14} />
          </button>
        </div>
      ));
  return (
    <ToastContext.Provider value={value}>
      {children}
      <div className="toasts">
        <div role="status" aria-live="polite">{render("polite")}</div>
        <div role="alert" aria-live="assertive">{render("assertive")}</div>
      </div>
    </ToastContext.Provider>
  );
}
