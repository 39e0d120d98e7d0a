// One reply of the agent: reasoning, text, tool cards, questions and presented files.
import { Markdown } from "../components/Markdown";
import type { AssistantItem } from "../lib/grouping";
import { ClarificationCard } from "./ClarificationCard";
import { FileChips } from "./FileChips";
import { ToolCard } from "./ToolCard";

export interface AssistantActions {
  onOpenFile: (path: string) => void;
  onAnswer: (text: string) => void;
  busy: boolean;
}

function Reasoning({ text, streaming }: { text: string; streaming: boolean }) {
  return (
    <details className="reasoning" data-testid="reasoning">
      <summary>{streaming ? "Thinking…" : "Reasoning"}</summary>
      <div className="reasoning-text">{text}</div>
    </details>
  );
}

function Item({ item, actions }: { item: AssistantItem; actions: AssistantActions }) {
  switch (item.kind) {
    case "reasoning":
      return <Reasoning text={item.text} streaming={item.streaming} />;
    case "text":
      return (
        <div className={`assistant-text ${item.streaming ? "streaming" : ""}`} data-testid="assistant-text">
          <Markdown text={item.text} />
        </div>
      );
    case "tool":
      return <ToolCard call={item.call} {...(item.result ? { result: item.result } : {})} {...(item.invalid ? { invalid: item.invalid } : {})} />;
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
      return <FileChips paths={item.paths} onOpen={actions.onOpenFile} label="Presented files" />;
  }
}

export function AssistantBlock({ items, actions }: { items: AssistantItem[]; actions: AssistantActions }) {
  return (
    <article className="msg msg-assistant" aria-label="Assistant">
      {items.map((item) => (
        <Item key={item.key} item={item} actions={actions} />
      ))}
    </article>
  );
}
