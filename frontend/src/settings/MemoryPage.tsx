// `/settings/memory`: what the agent remembers about the person — the on/off switch, the
// summary, the facts (search, category, correct, delete, add), export and import, and
// forgetting everything.
import { useState } from "react";
import { api } from "../api/client";
import { errorMessage } from "../api/http";
import type { Fact, FactCategory } from "../api/types";
import { ConfirmDialog } from "../components/Dialog";
import { Icon } from "../components/Icon";
import { EmptyState, ErrorState, Spinner } from "../components/States";
import { useToast } from "../components/Toasts";
import { useDebounced } from "../hooks/useDebounced";
import { useT } from "../i18n";
import { AddFactForm } from "./AddFactForm";
import { CategorySelect } from "./CategorySelect";
import { FactRow, factPreview } from "./FactRow";
import { ForgetAllDialog } from "./ForgetAllDialog";
import { MemorySwitch, SummaryForm } from "./MemorySettingsForm";
import { MemoryTransfer, type TransferResult } from "./MemoryTransfer";
import { useMemoryList } from "./useMemoryList";

/** Facts per page; "Show more" asks for this many more. */
const PAGE = 100;
/** How long typing pauses before the search runs. */
const SEARCH_DELAY_MS = 300;

export function MemoryPage() {
  const t = useT();
  const toast = useToast();
  const [search, setSearch] = useState("");
  const [category, setCategory] = useState<FactCategory | "">("");
  const [limit, setLimit] = useState(PAGE);
  const q = useDebounced(search.trim(), SEARCH_DELAY_MS);
  const { list, error, loading, reload, edits } = useMemoryList({ q, category, limit });
  const [deleting, setDeleting] = useState<Fact | null>(null);
  const [deleteBusy, setDeleteBusy] = useState(false);
  const [forgetting, setForgetting] = useState(false);
  const [transfer, setTransfer] = useState<TransferResult | null>(null);
  /** The fact just saved as a new version. */
  const [fresh, setFresh] = useState<string>();

  const confirmDelete = async () => {
    if (!deleting) return;
    setDeleteBusy(true);
    try {
      await api.deleteFact(deleting.fact_id);
      edits.removed(deleting.fact_id);
      toast({ kind: "success", message: t("settings.memory.forgot", { name: factPreview(deleting) }) });
    } catch (e) {
      toast({ kind: "error", message: t("settings.common.deleteFailed", { error: errorMessage(e) }) });
    } finally {
      setDeleteBusy(false);
      setDeleting(null);
    }
  };

  const filtered = q !== "" || category !== "";
  const facts = list?.facts ?? [];
  return (
    <main id="main" className="page settings-page memory-page">
      <div className="page-head">
        <h1>{t("settings.memory.title")}</h1>
        <div className="page-actions">
          <MemoryTransfer onResult={setTransfer} onImported={reload} />
          <button type="button" className="btn btn-sm btn-danger" onClick={() => setForgetting(true)} disabled={!list}>
            <Icon name="trash" size={14} /> {t("settings.forget.confirm")}
          </button>
        </div>
      </div>
      <p className="muted">
        {t("settings.memory.intro")}
      </p>
      {transfer && (
        <p
          className={transfer.ok ? "memory-transfer muted small" : "form-error"}
          role={transfer.ok ? "status" : "alert"}
          data-testid="memory-transfer"
        >
          {transfer.message}
        </p>
      )}
      {error && <ErrorState message={error} onRetry={reload} />}
      {!list && !error && <Spinner label={t("settings.memory.loading")} />}
      {list && (
        <>
          <MemorySwitch settings={list} onSaved={edits.settingsSaved} />
          <SummaryForm settings={list} onSaved={edits.settingsSaved} />
          <AddFactForm onAdded={edits.added} />
          <section className="memory-facts" aria-labelledby="memory-facts-title">
            <div className="memory-toolbar">
              <h2 id="memory-facts-title">
                {t("settings.memory.facts")} <span className="muted small">({list.total})</span>
              </h2>
              <label className="search">
                <Icon name="search" size={14} />
                <span className="visually-hidden">{t("settings.memory.search")}</span>
                <input
                  type="search"
                  placeholder={t("settings.memory.search")}
                  value={search}
                  onChange={(e) => setSearch(e.target.value)}
                />
              </label>
              <CategorySelect
                label={t("settings.memory.filter")}
                value={category}
                onChange={setCategory}
                anyLabel={t("settings.memory.allCategories")}
                hideLabel
              />
              {loading && <span className="spinner spinner-xs" aria-hidden="true" />}
            </div>
            {facts.length > 0 && (
              <ul className="fact-list" aria-label={t("settings.memory.facts")}>
                {facts.map((f) => (
                  <FactRow
                    key={f.fact_id}
                    fact={f}
                    fresh={f.fact_id === fresh}
                    onSaved={(old, next) => {
                      edits.replaced(old.fact_id, next);
                      setFresh(next.fact_id);
                    }}
                    onDelete={() => setDeleting(f)}
                  />
                ))}
              </ul>
            )}
            {facts.length === 0 &&
              (filtered ? (
                <EmptyState icon="search" title={t("settings.memory.noMatchTitle")}>
                  {t("settings.memory.noMatchText")}
                </EmptyState>
              ) : (
                <EmptyState title={t("settings.memory.emptyTitle")}>
                  {t("settings.memory.emptyText")}
                </EmptyState>
              ))}
            {facts.length >= limit && (
              <button type="button" className="btn btn-sm memory-more" onClick={() => setLimit(limit + PAGE)}>
                {t("settings.memory.more")}
              </button>
            )}
          </section>
        </>
      )}
      <ConfirmDialog
        open={deleting !== null}
        title={t("settings.memory.deleteTitle")}
        message={t("settings.memory.deleteMessage", { content: deleting?.content ?? "" })}
        confirmLabel={t("settings.common.delete")}
        danger
        busy={deleteBusy}
        onConfirm={() => void confirmDelete()}
        onCancel={() => setDeleting(null)}
      />
      <ForgetAllDialog
        open={forgetting}
        onClose={() => setForgetting(false)}
        onForgotten={(count) => {
          setForgetting(false);
          toast({ kind: "success", message: t("settings.memory.forgotCount", { count }) });
          reload();
        }}
      />
    </main>
  );
}
