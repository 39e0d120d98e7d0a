// The frame around every page: header (navigation, model, theme) and server banners.
import { useEffect, useState } from "react";
import { Trans } from "react-i18next";
import { Link, NavLink, Outlet, useLocation, useOutletContext } from "react-router-dom";
import { AccountMenu } from "../auth/AccountMenu";
import { useOptionalAuth } from "../auth/auth";
import { useT } from "../i18n";
import { useAppInfo } from "../state/appInfo";
import { Icon } from "./Icon";
import { ThemeToggle } from "./ThemeToggle";

export interface ShellContext {
  sidebarOpen: boolean;
  setSidebarOpen: (open: boolean) => void;
}

export function useShell(): ShellContext {
  return useOutletContext<ShellContext>();
}

function Logo() {
  return (
    <svg className="logo" width="22" height="22" viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="8" fill="var(--accent)" />
      <path
        d="M16 27V16M16 16l-6-6M10 10V5M10 10l-4-2M16 16l6-6M22 10V5M22 10l4-2M16 20l-4-3M16 20l4-3"
        stroke="var(--accent-contrast)"
        strokeWidth="2.4"
        strokeLinecap="round"
        fill="none"
      />
    </svg>
  );
}

function ModelLabel() {
  const { loaded, defaultModel } = useAppInfo();
  const t = useT();
  if (!loaded || !defaultModel) return null;
  return (
    <span className="model-label" data-testid="model-label" title={t("shell.modelTitle", { model: defaultModel.model })}>
      <span className="model-name">{defaultModel.name}</span>
      {defaultModel.demo && <span className="badge badge-demo">{t("shell.demoBadge")}</span>}
    </span>
  );
}

function Banners() {
  const { loaded, models, health, error } = useAppInfo();
  const open = useOptionalAuth()?.open ?? false;
  const t = useT();
  if (!loaded) return null;
  return (
    <>
      {open && (
        <div className="banner banner-warn" role="alert" data-testid="auth-off-banner">
          <Icon name="alert" /> <Trans t={t} i18nKey="shell.authOff" components={{ code: <code /> }} />
        </div>
      )}
      {error && (
        <div className="banner banner-error" role="alert">
          <Icon name="alert" /> {t("shell.unreachable", { error })}
        </div>
      )}
      {!error && models.length === 0 && (
        <div className="banner banner-warn" role="alert" data-testid="no-model-banner">
          <Icon name="alert" />
          <span>
            <Trans t={t} i18nKey="shell.noModel" components={{ code: <code />, strong: <strong /> }} />
          </span>
        </div>
      )}
      {health && health.sandbox === "local" && (
        <div className="banner banner-info" role="status">
          <Icon name="info" /> {t("shell.noSandbox")}
        </div>
      )}
    </>
  );
}

export function Shell() {
  const [sidebarOpen, setSidebarOpen] = useState(false);
  const ctx: ShellContext = { sidebarOpen, setSidebarOpen };
  const { pathname } = useLocation();
  useEffect(() => {
    if (!sidebarOpen) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") setSidebarOpen(false);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [sidebarOpen]);
  const auth = useOptionalAuth();
  const isAdmin = auth?.me.role === "admin";
  const open = auth?.open ?? false;
  const chatActive = pathname === "/" || (pathname.startsWith("/threads/") && !pathname.endsWith("/artifacts"));
  const t = useT();
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        {t("shell.skipToContent")}
      </a>
      <header className="topbar">
        <button
          type="button"
          className="btn btn-ghost btn-icon menu-button"
          aria-label={sidebarOpen ? t("shell.closeConversations") : t("shell.openConversations")}
          aria-expanded={sidebarOpen}
          aria-controls="sidebar"
          onClick={() => setSidebarOpen(!sidebarOpen)}
        >
          <Icon name="menu" />
        </button>
        <NavLink to="/" className="brand" aria-label={t("shell.home")}>
          <Logo /> <span className="brand-text">Antler</span>
        </NavLink>
        <nav className="topnav" aria-label={t("shell.mainNav")}>
          <Link to="/" className={chatActive ? "active" : ""} aria-current={chatActive ? "page" : undefined}>
            {t("shell.nav.chat")}
          </Link>
          <NavLink to="/scheduled" className={({ isActive }) => (isActive ? "active" : "")}>
            {t("shell.nav.scheduled")}
          </NavLink>
          <NavLink to="/settings/skills" className={({ isActive }) => (isActive ? "active" : "")}>
            {t("shell.nav.skills")}
          </NavLink>
          <NavLink to="/settings/agents" className={({ isActive }) => (isActive ? "active" : "")}>
            {t("shell.nav.agents")}
          </NavLink>
          <NavLink to="/settings/tools" className={({ isActive }) => (isActive ? "active" : "")}>
            {t("shell.nav.tools")}
          </NavLink>
          <NavLink to="/settings/memory" className={({ isActive }) => (isActive ? "active" : "")}>
            {t("shell.nav.memory")}
          </NavLink>
          {(isAdmin || open) && (
            <NavLink to="/admin/runs" className={({ isActive }) => (isActive ? "active" : "")}>
              {t("shell.nav.runs")}
            </NavLink>
          )}
          {isAdmin && !open && (
            <NavLink to="/settings/users" className={({ isActive }) => (isActive ? "active" : "")}>
              {t("shell.nav.users")}
            </NavLink>
          )}
          {(isAdmin || open) && (
            <NavLink to="/settings/secrets" className={({ isActive }) => (isActive ? "active" : "")}>
              {t("shell.nav.secrets")}
            </NavLink>
          )}
        </nav>
        <div className="topbar-end">
          <ModelLabel />
          <ThemeToggle />
          <AccountMenu />
        </div>
      </header>
      <Banners />
      <Outlet context={ctx} />
    </div>
  );
}
