// "Forget everything" on Settings → Memory: it cannot be undone, so the person types
// "forget" before the button works.
import { useState } from "react";
import { api } from "../api/client";
import { Dialog } from "../components/Dialog";
import { FormError, useFormAction } from "../components/Form";
import { Trans } from "react-i18next";
import { useT } from "../i18n";

/** The word to type; the translated one (`settings.forget.word`) is taken too. */
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
  const t = useT();
  const [typed, setTyped] = useState("");
  const { busy, error, setError, submit } = useFormAction();
  const word = t("settings.forget.word");
  const answer = typed.trim().toLocaleLowerCase();
  const confirmed = answer === WORD || answer === word.toLocaleLowerCase();
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
      title={t("settings.forget.title")}
      onClose={close}
      role="alertdialog"
      footer={
        <>
          <button type="button" className="btn" onClick={close}>
            {t("settings.common.cancel")}
          </button>
          <button type="submit" form="forget-all-form" className="btn btn-danger" disabled={!confirmed || busy}>
            {busy ? t("settings.forget.forgetting") : t("settings.forget.confirm")}
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
        <p>{t("settings.forget.text")}</p>
        <label className="field">
          <span>
            <Trans t={t} i18nKey="settings.forget.typeToConfirm" values={{ word }} components={{ strong: <strong /> }} />
          </span>
          <input value={typed} autoComplete="off" autoFocus onChange={(e) => setTyped(e.target.value)} />
        </label>
        <FormError error={error} />
      </form>
    </Dialog>
  );
}
