// The console is for admins: others get a short explanation instead of a 403 from the server.
// (Without sign-in, `auth.mode: none`, the one local user is the admin.)
import type { ReactNode } from "react";
import { Link } from "react-router-dom";
import { useOptionalAuth } from "../auth/auth";
import { EmptyState } from "../components/States";

export function AdminOnly({ children }: { children: ReactNode }) {
  const auth = useOptionalAuth();
  if (auth && !auth.open && auth.me.role !== "admin") {
    return (
      <main className="page" id="main">
        <EmptyState icon="alert" title="Admins only">
          <p>The runs console shows everyone&rsquo;s runs; ask an admin for access.</p>
          <Link to="/">Back to the chat</Link>
        </EmptyState>
      </main>
    );
  }
  return <>{children}</>;
}
