// "Add a fact" on Settings → Memory: something the agent should know, in the person's words.
import { useState } from "react";
import { api } from "../api/client";
import type { Fact, FactCategory } from "../api/types";
import { FormError, useFormAction } from "../components/Form";
import { Icon } from "../components/Icon";
import { useT } from "../i18n";
import { DEFAULT_CATEGORY } from "../lib/memory";
import { CategorySelect } from "./CategorySelect";

/** The form; the server's refusal (a 422: too long, looks like a secret…) shows under it. */
export function AddFactForm({ onAdded }: { onAdded: (fact: Fact) => void }) {
  const t = useT();
  const [content, setContent] = useState("");
  const [category, setCategory] = useState<FactCategory>(DEFAULT_CATEGORY);
  const { busy, error, submit } = useFormAction();
  const add = submit(async () => {
    onAdded(await api.addFact({ content: content.trim(), category }));
    setContent("");
  });
  return (
    <form className="settings-form memory-add" onSubmit={add} aria-labelledby="memory-add-title">
      <h2 id="memory-add-title">{t("settings.addFact.title")}</h2>
      <label className="field">
        <span>{t("settings.addFact.prompt")}</span>
        <textarea
          rows={2}
          value={content}
          required
          placeholder={t("settings.addFact.placeholder")}
          onChange={(e) => setContent(e.target.value)}
        />
      </label>
      <div className="memory-add-row">
        <CategorySelect label={t("settings.common.category")} value={category} onChange={setCategory} disabled={busy} />
        <button type="submit" className="btn btn-sm btn-primary" disabled={busy || !content.trim()}>
          <Icon name="plus" size={14} /> {busy ? t("settings.addFact.adding") : t("settings.addFact.add")}
        </button>
      </div>
      <FormError error={error} testId="memory-add-error" />
    </form>
  );
}
