// A ```mermaid block drawn as a diagram (see `lib/mermaid.ts` for how it stays inert), in the
// app's colour scheme, with its source one click away; a diagram that cannot be drawn shows
// its source and a short note instead.
import { useEffect, useState, useSyncExternalStore } from "react";
import { useT } from "../i18n";
import { cachedDiagram, type Diagram, drawDiagram, type Scheme } from "../lib/mermaid";
import { CopyButton } from "./CopyButton";

function subscribeScheme(onChange: () => void): () => void {
  const observer = new MutationObserver(onChange);
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ["data-theme"] });
  return () => observer.disconnect();
}

function currentScheme(): Scheme {
  return document.documentElement.dataset.theme === "dark" ? "dark" : "light";
}

/** The colour scheme the app shows (`<html data-theme>`), following its changes. */
function useScheme(): Scheme {
  return useSyncExternalStore(subscribeScheme, currentScheme, () => "light");
}

type State = { kind: "drawing" } | { kind: "drawn"; diagram: Diagram } | { kind: "failed"; message: string };

function firstLines(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split("\n").slice(0, 6).join("\n");
}

/** A Mermaid diagram from its (complete) source. */
export function MermaidDiagram({ source }: { source: string }) {
  const t = useT();
  const scheme = useScheme();
  const [state, setState] = useState<State>(() => {
    const hit = cachedDiagram(source, scheme);
    return hit ? { kind: "drawn", diagram: hit } : { kind: "drawing" };
  });
  const [showSource, setShowSource] = useState(false);

  useEffect(() => {
    const hit = cachedDiagram(source, scheme);
    if (hit) {
      setState({ kind: "drawn", diagram: hit });
      return;
    }
    let live = true;
    // A diagram being redrawn in the other scheme stays on screen until the new one is ready.
    setState((s) => (s.kind === "drawn" ? s : { kind: "drawing" }));
    drawDiagram(source, scheme).then(
      (diagram) => live && setState({ kind: "drawn", diagram }),
      (err: unknown) => live && setState({ kind: "failed", message: firstLines(err) }),
    );
    return () => {
      live = false;
    };
  }, [source, scheme]);

  const failed = state.kind === "failed";
  const sourceShown = showSource || failed;
  return (
    <div className="code-block mermaid-block" data-testid="mermaid" data-state={state.kind}>
      <div className="code-head">
        <span className="code-lang">mermaid</span>
        <span className="mermaid-actions">
          {!failed && (
            <button
              type="button"
              className="btn btn-ghost btn-xs"
              aria-pressed={showSource}
              onClick={() => setShowSource((v) => !v)}
            >
              {showSource ? t("markdown.mermaid.showDiagram") : t("markdown.mermaid.showSource")}
            </button>
          )}
          <CopyButton text={source} label={t("markdown.mermaid.copySource")} />
        </span>
      </div>
      {failed && (
        <div className="mermaid-error" role="note" data-testid="mermaid-error">
          <span>{t("markdown.mermaid.failed")}</span>
          <details>
            <summary>{t("markdown.mermaid.details")}</summary>
            <pre>{state.message}</pre>
          </details>
        </div>
      )}
      {!sourceShown && state.kind === "drawn" && (
        <div className="mermaid-diagram">
          <img
            src={state.diagram.url}
            width={state.diagram.width}
            height={state.diagram.height}
            alt={t("markdown.mermaid.alt")}
            draggable={false}
          />
        </div>
      )}
      {!sourceShown && state.kind === "drawing" && (
        <div className="mermaid-drawing" aria-busy="true">
          {t("markdown.mermaid.drawing")}
        </div>
      )}
      {sourceShown && (
        <pre className="mermaid-source">
          <code>{source}</code>
        </pre>
      )}
    </div>
  );
}
