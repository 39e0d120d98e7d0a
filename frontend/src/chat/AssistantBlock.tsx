// One reply of the agent: what it remembered (when its run was given facts), reasoning, text
// (its citations `[n]` linked to its sources), tool cards, questions and presented files; then
// the web pages it searched up or read, what its model calls used, its version switcher and
// Regenerate.
import { Fragment, useMemo } from "react";
import { Icon } from "../components/Icon";
import { Markdown } from "../components/Markdown";
import { useT } from "../i18n";
import type { BranchOptions } from "../lib/branches";
import type { AssistantGroup, AssistantItem } from "../lib/grouping";
import { NO_SUBTASKS, type SubtaskMap } from "../lib/subtasks";
import { TASK_TOOL } from "../lib/subtaskView";
import { NO_PROGRESS, type ToolProgressMap } from "../lib/toolProgress";
import { hasUsage } from "../lib/usage";
import { type CitationTarget, NO_SOURCES, type SourceMap, citationTargets, turnSources } from "../lib/webSources";
import { BranchSwitcher } from "./BranchSwitcher";
import { ClarificationCard } from "./ClarificationCard";
import { FeedbackButtons } from "./FeedbackButtons";
import { FileChips } from "./FileChips";
import { Reasoning } from "./Reasoning";
import { RememberedChip } from "./RememberedChip";
import { SubtaskCard } from "./SubtaskCard";
import { ToolCard } from "./ToolCard";
import { UsageLine } from "./UsageLine";
import { type VersionActions, canRun } from "./versions";
import { SourceList } from "./WebSources";

export interface AssistantActions {
  onOpenFile: (path: string) => void;
  onAnswer: (text: string) => void;
  busy: boolean;
}

/** What running calls reported: tool progress and subagents' tasks, by call id; and the
 * sources the reply's text may cite. */
interface Live {
  progress: ToolProgressMap;
  subtasks: SubtaskMap;
  citations: ReadonlyMap<number, CitationTarget>;
}

function Item({ item, actions, live }: { item: AssistantItem; actions: AssistantActions; live: Live }) {
  const t = useT();
  switch (item.kind) {
    case "reasoning":
      return <Reasoning text={item.text} streaming={item.streaming} tokens={item.tokens} />;
    case "text":
      return (
        <div className={`assistant-text ${item.streaming ? "streaming" : ""}`} data-testid="assistant-text">
          <Markdown text={item.text} citations={live.citations} />
        </div>
      );
    case "tool":
      if (item.call.name === TASK_TOOL && !item.invalid) {
        return <SubtaskCard call={item.call} result={item.result} task={live.subtasks[item.call.id]} />;
      }
      return (
        <ToolCard
          call={item.call}
          {...(item.result ? { result: item.result } : {})}
          {...(item.invalid ? { invalid: item.invalid } : {})}
          progress={live.progress[item.call.id]}
        />
      );
    case "clarification":
      return (
        <ClarificationCard
          clarification={item.clarification}
          answered={item.answered}
          disabled={actions.busy}
          onAnswer={actions.onAnswer}
        />
      );
    case "files":
      return <FileChips paths={item.paths} onOpen={actions.onOpenFile} label={t("chat.assistant.presentedFiles")} />;
  }
}

/**
 * Where the block's switchers go: the reply's own (its first message diverges) below it with
 * Regenerate; a later message's (an answer regenerated after tool calls) right before what
 * that message shows.
 */
function switchers(block: AssistantGroup, versions: VersionActions | undefined) {
  let footer: BranchOptions | undefined;
  const before = new Map<string, BranchOptions>();
  for (const id of block.messageIds) {
    const options = versions?.byMessage.get(id)?.options;
    if (!options) continue;
    const at = block.itemOf[id];
    if (id === block.key || !at) footer ??= options;
    else if (!before.has(at)) before.set(at, options);
  }
  return { footer, before };
}

export function AssistantBlock({
  block,
  actions,
  versions,
  progress = NO_PROGRESS,
  subtasks = NO_SUBTASKS,
  memory,
  sources = NO_SOURCES,
  finished = true,
}: {
  block: AssistantGroup;
  actions: AssistantActions;
  versions?: VersionActions | undefined;
  /** What running tool calls last reported, by call id. */
  progress?: ToolProgressMap;
  /** Subagents' tasks, by the id of their `task` call. */
  subtasks?: SubtaskMap;
  /** The ids of the remembered facts this reply's run was given. */
  memory?: string[] | undefined;
  /** Web sources calls reported while the run streamed, by call id. */
  sources?: SourceMap;
  /** Its run has ended (the usage line shows then). */
  finished?: boolean;
}) {
  const t = useT();
  const { footer, before } = switchers(block, versions);
  const found = useMemo(() => turnSources(block, sources), [block, sources]);
  // The same targets while the sources stay the same, so streaming text alone re-renders.
  const citedKey = found.map((s) => `${s.index}\u0000${s.title}`).join("\u0001");
  const citations = useMemo(() => citationTargets(block.key, found), [block.key, citedKey]);
  const last = block.lastAi;
  const canRegenerate = !!last && canRun(versions, versions?.byMessage.get(last));
  // The run that wrote the reply's last message is the one rated.
  const ratedRun = finished && last ? versions?.byMessage.get(last)?.runId : undefined;
  const switcher = (options: BranchOptions) =>
    versions && <BranchSwitcher options={options} onSelect={versions.onBranch} disabled={versions.streaming} />;
  return (
    <article className="msg msg-assistant" aria-label={t("chat.assistant.label")}>
      {memory && memory.length > 0 && <RememberedChip factIds={memory} />}
      {block.items.map((item) => {
        const options = before.get(item.key);
        return (
          <Fragment key={item.key}>
            {options && <div className="msg-actions msg-actions-inline">{switcher(options)}</div>}
            <Item item={item} actions={actions} live={{ progress, subtasks, citations }} />
          </Fragment>
        );
      })}
      <SourceList sources={found} turnKey={block.key} />
      {finished && hasUsage(block.usage) && <UsageLine usage={block.usage} />}
      {(footer || canRegenerate || ratedRun) && (
        <div className="msg-actions">
          {footer && switcher(footer)}
          {canRegenerate && last && (
            <button
              type="button"
              className="btn btn-ghost btn-icon btn-xs msg-action"
              aria-label={t("chat.assistant.regenerate")}
              title={t("chat.assistant.regenerate")}
              onClick={() => versions?.onRegenerate(last)}
            >
              <Icon name="refresh" size={14} />
            </button>
          )}
          {ratedRun && <FeedbackButtons runId={ratedRun} />}
        </div>
      )}
    </article>
  );
}
