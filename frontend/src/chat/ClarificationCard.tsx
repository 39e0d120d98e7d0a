// The agent's question: option buttons send the chosen option as the next message.
import { useT } from "../i18n";
import type { Clarification } from "../lib/grouping";

export function ClarificationCard({
  clarification,
  answered,
  disabled,
  onAnswer,
}: {
  clarification: Clarification;
  answered: boolean;
  disabled: boolean;
  onAnswer: (answer: string) => void;
}) {
  const t = useT();
  return (
    <div className="clarification" role="group" aria-label={t("chat.clarification.label")} data-testid="clarification">
      {clarification.context && <p className="clar-context">{clarification.context}</p>}
      <p className="clar-question">{clarification.question}</p>
      {clarification.options.length > 0 ? (
        <div className="clar-options">
          {clarification.options.map((option) => (
            <button
              key={option}
              type="button"
              className="btn btn-sm"
              disabled={answered || disabled}
              onClick={() => onAnswer(option)}
            >
              {option}
            </button>
          ))}
        </div>
      ) : (
        !answered && <p className="muted">{t("chat.clarification.answerBelow")}</p>
      )}
    </div>
  );
}
