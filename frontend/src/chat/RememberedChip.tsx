// "Remembered N things" on a reply whose run was given remembered facts: a chip that opens a
// popover listing them (read from /api/memory when opened, so it shows them as they are now).
import { useEffect, useId, useMemo, useRef, useState } from "react";
import { Link } from "react-router-dom";
import { api } from "../api/client";
import type { Fact } from "../api/types";
import { Icon } from "../components/Icon";
import { ErrorState, Spinner } from "../components/States";
import { useT } from "../i18n";
import { categoryLabel } from "../lib/memory";
import { useResource } from "../lib/useResource";

/** As many as the server lists at once: the facts a run was given are among them. */
const ALL_FACTS = 1000;

/** The chip and its popover for the facts `factIds` of one run. */
export function RememberedChip({ factIds }: { factIds: string[] }) {
  const t = useT();
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const panelId = useId();
  // Read each time it opens: facts may have been corrected or forgotten since the run.
  const { data, error, reload } = useResource(open ? "remembered-facts" : null, (signal) =>
    api.memory({ limit: ALL_FACTS }, signal),
  );
  const byId = useMemo(() => new Map((data?.facts ?? []).map((f) => [f.fact_id, f])), [data]);

  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      setOpen(false);
      button.current?.focus();
    };
    // A click elsewhere closes it, as menus do.
    const onPointer = (e: MouseEvent) => {
      if (root.current && !root.current.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("mousedown", onPointer);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("mousedown", onPointer);
    };
  }, [open]);

  const label = t("chat.remembered.chip", { count: factIds.length });
  return (
    <div className="remembered" ref={root}>
      <button
        ref={button}
        type="button"
        className="remembered-chip"
        aria-expanded={open}
        aria-controls={open ? panelId : undefined}
        aria-haspopup="dialog"
        onClick={() => setOpen(!open)}
        data-testid="remembered-chip"
      >
        <Icon name="brain" size={14} /> {label}
      </button>
      {open && (
        <div id={panelId} className="remembered-popover" role="dialog" aria-label={t("chat.remembered.dialog")}>
          <p className="remembered-intro small muted">{t("chat.remembered.intro")}</p>
          {error && <ErrorState message={error} onRetry={reload} />}
          {!data && !error && <Spinner label={t("chat.remembered.loading")} />}
          {data && (
            <ul className="remembered-list" data-testid="remembered-list">
              {factIds.map((id) => (
                <RememberedFact key={id} fact={byId.get(id)} />
              ))}
            </ul>
          )}
          <Link className="remembered-manage small" to="/settings/memory">
            {t("chat.remembered.manage")}
          </Link>
        </div>
      )}
    </div>
  );
}

/** One fact given to the run; one no longer there (forgotten, or corrected since) says so. */
function RememberedFact({ fact }: { fact: Fact | undefined }) {
  const t = useT();
  if (!fact) return <li className="muted">{t("chat.remembered.forgotten")}</li>;
  return (
    <li>
      <span className="remembered-content">{fact.content}</span>{" "}
      <span className="badge" data-category={fact.category}>
        {categoryLabel(fact.category)}
      </span>
    </li>
  );
}
