// The conversation: the person's messages and the agent's replies, following the stream.
import { useLayoutEffect, useMemo, useRef } from "react";
import { Icon } from "../components/Icon";
import { streamingIds, visibleMessages } from "../lib/conversation";
import { groupMessages } from "../lib/grouping";
import type { SessionState } from "../state/session";
import { AssistantBlock, type AssistantActions } from "./AssistantBlock";
import { FileChips } from "./FileChips";

export function MessageList({
  state,
  actions,
  onRetry,
}: {
  state: SessionState;
  actions: AssistantActions;
  onRetry: () => void;
}) {
  const blocks = useMemo(
    () =>
      groupMessages(
        visibleMessages(state.conversation),
        state.streaming ? streamingIds(state.conversation) : new Set<string>(),
      ),
    [state.conversation, state.streaming],
  );
  const scroller = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [blocks, state.streaming, state.error, state.stopped]);

  const last = blocks[blocks.length - 1];
  const waiting = state.streaming && (!last || last.kind === "human");
  return (
    <div
      className="messages"
      ref={scroller}
      onScroll={(e) => {
        const el = e.currentTarget;
        stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 120;
      }}
      data-testid="messages"
      aria-busy={state.streaming}
    >
      <div className="messages-inner">
        {blocks.map((b) =>
          b.kind === "human" ? (
            <article key={b.key} className="msg msg-human" aria-label="You" data-testid="human-message">
              {b.images.length > 0 && (
                <div className="human-images">
                  {b.images.map((src, i) => (
                    <img key={i} src={src} alt={`Image ${i + 1} sent with this message`} data-testid="human-image" />
                  ))}
                </div>
              )}
              {b.text && <div className="bubble">{b.text}</div>}
              {b.files.length > 0 && <FileChips paths={b.files} onOpen={actions.onOpenFile} label="Attached files" />}
            </article>
          ) : (
            <AssistantBlock key={b.key} items={b.items} actions={actions} />
          ),
        )}
        {waiting && (
          <div className="thinking" role="status" data-testid="thinking">
            <span className="dots" aria-hidden="true">
              <span />
              <span />
              <span />
            </span>
            Working…
          </div>
        )}
        {state.notice && (
          <p className="run-notice" role="status">
            <Icon name="info" size={14} /> {state.notice}
          </p>
        )}
        {state.stopped && !state.streaming && (
          <p className="run-stopped" role="status" data-testid="run-stopped">
            <Icon name="stop" size={14} /> Stopped. The answer above may be incomplete.
          </p>
        )}
        {state.error && !state.streaming && (
          <div className="run-error" role="alert" data-testid="run-error">
            <Icon name="alert" />
            <span className="run-error-text">{state.error}</span>
            <button type="button" className="btn btn-sm" onClick={onRetry}>
              <Icon name="refresh" size={14} /> Retry
            </button>
          </div>
        )}
      </div>
    </div>
  );
}
