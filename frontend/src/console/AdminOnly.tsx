// The console is for admins: others get a short explanation instead of a 403 from the server.
// (Without sign-in, `auth.mode: none`, the one local user is the admin.)
import type { ReactNode } from "react";
import { Link } from "react-router-dom";
import { useOptionalAuth } from "../auth/auth";
import { EmptyState } from "../components/States";
import { useT } from "../i18n";

export function AdminOnly({ children }: { children: ReactNode }) {
  const auth = useOptionalAuth();
  const t = useT();
  if (auth && !auth.open && auth.me.role !== "admin") {
    return (
      <main className="page" id="main">
        <EmptyState icon="alert" title={t("console.adminsOnly")}>
          <p>{t("console.adminsOnlyBody")}</p>
          <Link to="/">{t("common.backToChat")}</Link>
        </EmptyState>
      </main>
    );
  }
  return <>{children}</>;
}
