// The signed-in person in the top bar: their settings and sign-out.
import { Link } from "react-router-dom";
import { Icon } from "../components/Icon";
import { useOptionalAuth } from "./auth";

export function AccountMenu() {
  const auth = useOptionalAuth();
  if (!auth || auth.open) return null;
  const { me, signOut } = auth;
  return (
    <div className="account-menu" data-testid="account-menu">
      <Link to="/settings/account" className="account-name" title={`Signed in as ${me.email} (${me.role})`}>
        <Icon name="user" /> <span className="account-email">{me.email}</span>
      </Link>
      <button type="button" className="btn btn-ghost btn-sm sign-out" onClick={() => void signOut()} aria-label="Sign out">
        <Icon name="logout" /> <span className="sign-out-text">Sign out</span>
      </button>
    </div>
  );
}
