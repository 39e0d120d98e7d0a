// "Add a fact" on Settings → Memory: something the agent should know, in the person's words.
import { useState } from "react";
import { api } from "../api/client";
import type { Fact, FactCategory } from "../api/types";
import { FormError, useFormAction } from "../components/Form";
import { Icon } from "../components/Icon";
import { DEFAULT_CATEGORY } from "../lib/memory";
import { CategorySelect } from "./CategorySelect";

/** The form; the server's refusal (a 422: too long, looks like a secret…) shows under it. */
export function AddFactForm({ onAdded }: { onAdded: (fact: Fact) => void }) {
  const [content, setContent] = useState("");
  const [category, setCategory] = useState<FactCategory>(DEFAULT_CATEGORY);
  const { busy, error, submit } = useFormAction();
  const add = submit(async () => {
    onAdded(await api.addFact({ content: content.trim(), category }));
    setContent("");
  });
  return (
    <form className="settings-form memory-add" onSubmit={add} aria-labelledby="memory-add-title">
      <h2 id="memory-add-title">Add a fact</h2>
      <label className="field">
        <span>What should the agent remember?</span>
        <textarea
          rows={2}
          value={content}
          required
          placeholder="I prefer metric units."
          onChange={(e) => setContent(e.target.value)}
        />
      </label>
      <div className="memory-add-row">
        <CategorySelect label="Category" value={category} onChange={setCategory} disabled={busy} />
        <button type="submit" className="btn btn-sm btn-primary" disabled={busy || !content.trim()}>
          <Icon name="plus" size={14} /> {busy ? "Adding…" : "Add"}
        </button>
      </div>
      <FormError error={error} testId="memory-add-error" />
    </form>
  );
}
