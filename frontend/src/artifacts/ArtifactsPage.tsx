// `/threads/:threadId/artifacts`: every file of a conversation with previews.
import { useEffect } from "react";
import { Link, useParams, useSearchParams } from "react-router-dom";
import { threadTitle } from "../api/types";
import { Icon } from "../components/Icon";
import { useT } from "../i18n";
import { useStore } from "../state/store";
import { refreshThreads, threadsStore } from "../state/threads";
import { ArtifactBrowser } from "./ArtifactBrowser";

export function ArtifactsPage() {
  const { threadId = "" } = useParams();
  const [params, setParams] = useSearchParams();
  const { threads } = useStore(threadsStore);
  const thread = threads.find((t) => t.thread_id === threadId);
  const selected = params.get("file");
  const t = useT();
  useEffect(() => {
    if (!threadsStore.get().loaded) void refreshThreads();
  }, []);
  return (
    <main id="main" className="page artifacts-page">
      <div className="page-head">
        <Link to={`/threads/${threadId}`} className="btn btn-ghost btn-sm">
          <span className="flip" aria-hidden="true">
            <Icon name="chevron" size={14} />
          </span>
          {t("common.backToChat")}
        </Link>
        <h1>
          {t("artifacts.files")}
          {thread ? ` · ${threadTitle(thread)}` : ""}
        </h1>
      </div>
      <ArtifactBrowser
        threadId={threadId}
        selected={selected}
        onSelect={(p) =>
          setParams((q) => {
            if (p) q.set("file", p);
            else q.delete("file");
            return q;
          })
        }
        version={0}
        layout="page"
      />
    </main>
  );
}
