// The signed-in person in the top bar: their settings and sign-out.
import { Link } from "react-router-dom";
import { Icon } from "../components/Icon";
import { useT } from "../i18n";
import { useOptionalAuth } from "./auth";

export function AccountMenu() {
  const auth = useOptionalAuth();
  const t = useT();
  if (!auth || auth.open) return null;
  const { me, signOut } = auth;
  const role = t(`auth.roles.${me.role}`, { defaultValue: me.role });
  return (
    <div className="account-menu" data-testid="account-menu">
      <Link to="/settings/account" className="account-name" title={t("auth.signedInAs", { email: me.email, role })}>
        <Icon name="user" /> <span className="account-email">{me.email}</span>
      </Link>
      <button type="button" className="btn btn-ghost btn-sm sign-out" onClick={() => void signOut()} aria-label={t("auth.signOut")}>
        <Icon name="logout" /> <span className="sign-out-text">{t("auth.signOut")}</span>
      </button>
    </div>
  );
}
