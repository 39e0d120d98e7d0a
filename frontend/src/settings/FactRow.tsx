// One remembered fact on Settings → Memory: its text, category, confidence, confirmations,
// dates and source conversation; Edit corrects it in place (a new version), Delete asks first.
import { useState } from "react";
import { Link } from "react-router-dom";
import { api } from "../api/client";
import type { Fact } from "../api/types";
import { FormError, useFormAction } from "../components/Form";
import { Icon } from "../components/Icon";
import { useT } from "../i18n";
import { categoryLabel, factDetails } from "../lib/memory";
import { CategorySelect } from "./CategorySelect";

/** A fact's first words, to name it in button labels. */
export function factPreview(fact: Fact): string {
  const text = fact.content.trim();
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

export function FactRow({
  fact,
  fresh,
  onSaved,
  onDelete,
}: {
  fact: Fact;
  /** Just saved as this new version (said once, on the row). */
  fresh: boolean;
  /** The fact was corrected: `next` is its new version. */
  onSaved: (old: Fact, next: Fact) => void;
  onDelete: () => void;
}) {
  const t = useT();
  const [editing, setEditing] = useState(false);
  const name = factPreview(fact);
  return (
    <li className="fact-row" data-testid="fact-row" data-fact={fact.fact_id}>
      {editing ? (
        <FactEditor
          fact={fact}
          onCancel={() => setEditing(false)}
          onSaved={(next) => {
            setEditing(false);
            onSaved(fact, next);
          }}
        />
      ) : (
        <>
          <div className="fact-main">
            <p className="fact-content">{fact.content}</p>
            <p className="fact-meta muted small" data-testid="fact-meta">
              <span className="badge" data-category={fact.category}>
                {categoryLabel(fact.category)}
              </span>
              {factDetails(fact).map((d) => (
                <span key={d.text} title={d.title}>
                  {d.text}
                </span>
              ))}
              {fact.source_thread && (
                <Link
                  to={`/threads/${encodeURIComponent(fact.source_thread)}`}
                  title={t("settings.facts.sourceTitle")}
                >
                  {t("settings.facts.source")}
                </Link>
              )}
              {fresh && (
                <span className="badge badge-ok" role="status">
                  {t("settings.facts.savedNew")}
                </span>
              )}
            </p>
          </div>
          <div className="fact-actions">
            <button
              type="button"
              className="btn btn-sm"
              onClick={() => setEditing(true)}
              aria-label={t("settings.facts.editLabel", { name })}
            >
              <Icon name="edit" size={14} /> {t("settings.common.edit")}
            </button>
            <button
              type="button"
              className="btn btn-ghost btn-icon btn-sm"
              onClick={onDelete}
              aria-label={t("settings.facts.deleteLabel", { name })}
            >
              <Icon name="trash" size={14} />
            </button>
          </div>
        </>
      )}
    </li>
  );
}

/** The inline editor: the text and the category; Save sends what changed. */
function FactEditor({ fact, onCancel, onSaved }: { fact: Fact; onCancel: () => void; onSaved: (next: Fact) => void }) {
  const t = useT();
  const [content, setContent] = useState(fact.content);
  const [category, setCategory] = useState(fact.category);
  const { busy, error, submit } = useFormAction();
  const changed = content.trim() !== fact.content || category !== fact.category;
  const save = submit(async () => {
    const body = {
      ...(content.trim() !== fact.content ? { content: content.trim() } : {}),
      ...(category !== fact.category ? { category } : {}),
    };
    onSaved(await api.updateFact(fact.fact_id, body));
  });
  return (
    <form className="fact-editor" onSubmit={save}>
      <label className="field">
        <span>{t("settings.facts.fact")}</span>
        <textarea rows={2} value={content} required autoFocus onChange={(e) => setContent(e.target.value)} />
      </label>
      <div className="fact-editor-row">
        <CategorySelect label={t("settings.common.category")} value={category} onChange={setCategory} disabled={busy} />
        <div className="form-actions">
          <button type="button" className="btn btn-sm" onClick={onCancel} disabled={busy}>
            {t("settings.common.cancel")}
          </button>
          <button type="submit" className="btn btn-sm btn-primary" disabled={busy || !changed || !content.trim()}>
            {busy ? t("settings.common.saving") : t("settings.common.save")}
          </button>
        </div>
      </div>
      <FormError error={error} />
    </form>
  );
}
