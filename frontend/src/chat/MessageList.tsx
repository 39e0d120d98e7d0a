// The conversation: the person's messages and the agent's replies, following the stream; the
// messages summarized for the agent fold behind a marker.
import { useLayoutEffect, useMemo, useRef } from "react";
import { Icon } from "../components/Icon";
import { useT } from "../i18n";
import { streamingIds, visibleMessages } from "../lib/conversation";
import { type Block, groupMessages } from "../lib/grouping";
import { memoryOf } from "../lib/runMemory";
import { splitSummarized } from "../lib/summarized";
import type { SessionState } from "../state/session";
import { AssistantBlock, type AssistantActions } from "./AssistantBlock";
import { HumanMessage } from "./HumanMessage";
import { SuggestionChips } from "./SuggestionChips";
import { shownSuggestions } from "./suggestions";
import { SummaryMarker } from "./SummaryMarker";
import type { VersionActions } from "./versions";

export function MessageList({
  state,
  actions,
  versions,
  onRetry,
}: {
  state: SessionState;
  actions: AssistantActions;
  /** Edit, Regenerate and version switching (none: the messages only). */
  versions?: VersionActions;
  onRetry: () => void;
}) {
  const t = useT();
  const { blocks, split } = useMemo(() => {
    const messages = visibleMessages(state.conversation);
    const grouped = groupMessages(messages, state.streaming ? streamingIds(state.conversation) : new Set<string>());
    return { blocks: grouped, split: splitSummarized(grouped, messages, state.summary) };
  }, [state.conversation, state.streaming, state.summary]);
  const scroller = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [blocks, state.streaming, state.error, state.stopped]);

  const last = blocks[blocks.length - 1];
  const waiting = state.streaming && (!last || last.kind === "human");
  const block = (b: Block) =>
    b.kind === "human" ? (
      <HumanMessage key={b.key} block={b} onOpenFile={actions.onOpenFile} versions={versions} />
    ) : (
      <AssistantBlock
        key={b.key}
        block={b}
        actions={actions}
        versions={versions}
        progress={state.toolProgress}
        subtasks={state.subtasks}
        sources={state.sources}
        memory={memoryOf(state.remembered, b.messageIds)}
        finished={!(state.streaming && b === last)}
      />
    );
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
        {split && state.summary && (
          <SummaryMarker
            count={split.count}
            content={state.summary.content}
            earlier={split.earlier.length > 0 ? () => split.earlier.map(block) : undefined}
          />
        )}
        {/* The same place with or without a marker: a summary arriving keeps the replies' state. */}
        {(split?.later ?? blocks).map(block)}
        <SuggestionChips
          items={shownSuggestions(state.conversation, state.streaming, state.suggestions)}
          onPick={actions.onAnswer}
          disabled={actions.busy}
        />
        {waiting && (
          <div className="thinking" role="status" data-testid="thinking">
            <span className="dots" aria-hidden="true">
              <span />
              <span />
              <span />
            </span>
            {t("chat.messages.working")}
          </div>
        )}
        {state.notice && (
          <p className="run-notice" role="status">
            <Icon name="info" size={14} /> {state.notice}
          </p>
        )}
        {state.stopped && !state.streaming && (
          <p className="run-stopped" role="status" data-testid="run-stopped">
            <Icon name="stop" size={14} /> {t("chat.messages.stopped")}
          </p>
        )}
        {state.error && !state.streaming && (
          <div className="run-error" role="alert" data-testid="run-error">
            <Icon name="alert" />
            <span className="run-error-text">{state.error}</span>
            <button type="button" className="btn btn-sm" onClick={onRetry}>
              <Icon name="refresh" size={14} /> {t("chat.messages.retry")}
            </button>
          </div>
        )}
      </div>
    </div>
  );
}
