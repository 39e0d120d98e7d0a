// "Forget everything" on Settings → Memory: it cannot be undone, so the person types
// "forget" before the button works.
import { useState } from "react";
import { api } from "../api/client";
import { Dialog } from "../components/Dialog";
import { FormError, useFormAction } from "../components/Form";

/** The word to type. */
const WORD = "forget";

/** The dialog; `onForgotten` gets how many facts went. */
export function ForgetAllDialog({
  open,
  onClose,
  onForgotten,
}: {
  open: boolean;
  onClose: () => void;
  onForgotten: (count: number) => void;
}) {
  const [typed, setTyped] = useState("");
  const { busy, error, setError, submit } = useFormAction();
  const confirmed = typed.trim().toLowerCase() === WORD;
  const close = () => {
    setTyped("");
    setError(undefined);
    onClose();
  };
  const forget = submit(async () => {
    const { count } = await api.forgetMemory();
    setTyped("");
    onForgotten(count);
  });
  return (
    <Dialog
      open={open}
      title="Forget everything?"
      onClose={close}
      role="alertdialog"
      footer={
        <>
          <button type="button" className="btn" onClick={close}>
            Cancel
          </button>
          <button type="submit" form="forget-all-form" className="btn btn-danger" disabled={!confirmed || busy}>
            {busy ? "Forgetting…" : "Forget everything"}
          </button>
        </>
      }
    >
      <form
        id="forget-all-form"
        className="forget-all"
        // Enter in the box does nothing until the word is right.
        onSubmit={(e) => (confirmed ? forget(e) : e.preventDefault())}
      >
        <p>
          Every fact the agent remembers about you goes, with its history. This cannot be undone; export first to keep
          a copy.
        </p>
        <label className="field">
          <span>
            Type <strong>{WORD}</strong> to confirm
          </span>
          <input value={typed} autoComplete="off" autoFocus onChange={(e) => setTyped(e.target.value)} />
        </label>
        <FormError error={error} />
      </form>
    </Dialog>
  );
}
