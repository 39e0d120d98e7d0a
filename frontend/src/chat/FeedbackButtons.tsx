// Thumbs up and down under a finished answer: a click records the rating (pressed, shown at
// once), a click on the pressed one takes it back; either opens a short, optional comment
// box. The ratings of the conversation's answers are read when it opens.
import { useState } from "react";
import { useParams } from "react-router-dom";
import { errorMessage } from "../api/http";
import { useToast } from "../components/Toasts";
import { useT } from "../i18n";
import { MAX_COMMENT_CHARS, type Rating, rateRun, useRunFeedback } from "./feedback";

/** A thumb (up; turned over for down), drawn like the app's icons. */
export function Thumb({ down, size = 14 }: { down?: boolean; size?: number }) {
  return (
    <svg
      className="icon"
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={2}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
      style={down ? { transform: "rotate(180deg)" } : undefined}
    >
      <path d="M7 11v9H4v-9zM7 11l4-8a2 2 0 012 2v4h5.5a2 2 0 012 2.3l-1.3 7A2 2 0 0117.2 20H7" />
    </svg>
  );
}

/** The thumbs of the answer of run `runId` in the conversation shown (`threadId`, else the
 * page's). */
export function FeedbackButtons({ runId, threadId }: { runId: string; threadId?: string }) {
  const params = useParams();
  const thread = threadId ?? params["threadId"];
  if (!thread) return null;
  return <Thumbs threadId={thread} runId={runId} />;
}

function Thumbs({ threadId, runId }: { threadId: string; runId: string }) {
  const t = useT();
  const toast = useToast();
  const current = useRunFeedback(threadId, runId);
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState("");
  const [sending, setSending] = useState(false);

  const save = async (rating: Rating | undefined, comment?: string): Promise<boolean> => {
    try {
      await rateRun(threadId, runId, rating, comment);
      return true;
    } catch (e) {
      toast({ kind: "error", message: t("feedback.saveFailed", { message: errorMessage(e) }) });
      return false;
    }
  };

  const click = (rating: Rating) => {
    if (current?.rating === rating) {
      setOpen(false);
      void save(undefined);
      return;
    }
    setDraft("");
    setOpen(true);
    void save(rating);
  };

  const send = async () => {
    if (!current) return;
    setSending(true);
    const ok = await save(current.rating, draft);
    setSending(false);
    if (ok) {
      setOpen(false);
      toast({ kind: "success", message: t("feedback.thanks") });
    }
  };

  const thumb = (rating: Rating) => {
    const pressed = current?.rating === rating;
    const label = t(rating === "up" ? "feedback.good" : "feedback.bad");
    return (
      <button
        type="button"
        className={`btn btn-ghost btn-icon btn-xs feedback-thumb ${pressed ? "pressed" : ""}`}
        aria-pressed={pressed}
        aria-label={label}
        title={pressed ? t("feedback.undo") : label}
        data-testid={`feedback-${rating}`}
        onClick={() => click(rating)}
      >
        <Thumb down={rating === "down"} />
      </button>
    );
  };

  return (
    <>
      <span className="feedback-thumbs" role="group" aria-label={t("feedback.group")}>
        {thumb("up")}
        {thumb("down")}
      </span>
      {open && current && (
        <form
          className="feedback-comment"
          onSubmit={(e) => {
            e.preventDefault();
            void send();
          }}
        >
          <label className="feedback-comment-label" htmlFor={`feedback-${runId}`}>
            {t(current.rating === "up" ? "feedback.commentUp" : "feedback.commentDown")}
          </label>
          <textarea
            id={`feedback-${runId}`}
            className="feedback-comment-input"
            rows={2}
            maxLength={MAX_COMMENT_CHARS}
            placeholder={t("feedback.placeholder")}
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Escape") setOpen(false);
            }}
            autoFocus
          />
          <div className="feedback-comment-actions">
            <button type="button" className="btn btn-sm btn-ghost" onClick={() => setOpen(false)}>
              {t("feedback.skip")}
            </button>
            <button type="submit" className="btn btn-sm btn-primary" disabled={sending || !draft.trim()}>
              {t("feedback.send")}
            </button>
          </div>
        </form>
      )}
    </>
  );
}
