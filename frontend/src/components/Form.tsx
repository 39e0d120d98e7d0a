// What the sign-in, setup, account and users forms share: a labelled input, the error line,
// and one way to submit (busy while it runs, the server's message when it fails).
import { useCallback, useState, type FormEvent, type InputHTMLAttributes } from "react";
import { errorMessage } from "../api/http";

/** A labelled input; `onValue` gets the new text. */
export function Field({
  label,
  onValue,
  ...input
}: { label: string; onValue: (value: string) => void } & Omit<InputHTMLAttributes<HTMLInputElement>, "onChange">) {
  return (
    <label className="field">
      <span>{label}</span>
      <input {...input} onChange={(e) => onValue(e.target.value)} />
    </label>
  );
}

/** The password inputs of the forms (at least 8 characters for new ones, as the server asks). */
export function PasswordField({
  label,
  value,
  onValue,
  fresh = false,
}: {
  label: string;
  value: string;
  onValue: (value: string) => void;
  /** A new password (browsers offer to generate one) rather than the current one. */
  fresh?: boolean;
}) {
  return (
    <Field
      label={label}
      type="password"
      autoComplete={fresh ? "new-password" : "current-password"}
      {...(fresh ? { minLength: 8 } : {})}
      required
      value={value}
      onValue={onValue}
    />
  );
}

/** The line saying why the last submit failed. */
export function FormError({ error, testId }: { error: string | undefined; testId?: string }) {
  if (!error) return null;
  return (
    <p className="form-error" role="alert" data-testid={testId}>
      {error}
    </p>
  );
}

/** Submits a form through `action`: busy meanwhile, and the failure's message kept. */
export function useFormAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const submit = useCallback(
    (action: () => Promise<void>) => (e: FormEvent) => {
      e.preventDefault();
      setBusy(true);
      setError(undefined);
      void action()
        .catch((err: unknown) => setError(errorMessage(err)))
        .finally(() => setBusy(false));
    },
    [],
  );
  return { busy, error, setError, submit };
}
