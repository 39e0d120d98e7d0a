import { Navigate, Route, Routes } from "react-router-dom";
import { ArtifactsPage } from "./artifacts/ArtifactsPage";
import { ChatPage } from "./chat/ChatPage";
import { RunDetailPage } from "./console/RunDetailPage";
import { RunsConsolePage } from "./console/RunsConsolePage";
import { Shell } from "./components/Shell";
import { EmptyState } from "./components/States";
import { ToastProvider } from "./components/Toasts";
import { AuthGate } from "./auth/auth";
import { useT } from "./i18n";
import { ScheduledPage } from "./scheduled/ScheduledPage";
import { AccountPage } from "./settings/AccountPage";
import { AgentsPage } from "./settings/AgentsPage";
import { MemoryPage } from "./settings/MemoryPage";
import { SkillsPage } from "./settings/SkillsPage";
import { ToolsPage } from "./settings/ToolsPage";
import { SecretsPage } from "./settings/SecretsPage";
import { UsersPage } from "./settings/UsersPage";
import { AppInfoProvider } from "./state/appInfo";

function NotFound() {
  const t = useT();
  return (
    <main className="page" id="main">
      <EmptyState icon="alert" title={t("shell.notFound")}>
        <a href="/">{t("common.backToChat")}</a>
      </EmptyState>
    </main>
  );
}

export function App() {
  return (
    <ToastProvider>
      <AuthGate>
        <AppInfoProvider>
          <Routes>
          <Route element={<Shell />}>
            <Route path="/" element={<ChatPage />} />
            <Route path="/threads/:threadId" element={<ChatPage />} />
            <Route path="/threads/:threadId/artifacts" element={<ArtifactsPage />} />
            <Route path="/scheduled" element={<ScheduledPage />} />
            <Route path="/settings" element={<Navigate to="/settings/skills" replace />} />
            <Route path="/settings/skills" element={<SkillsPage />} />
            <Route path="/settings/agents" element={<AgentsPage />} />
            <Route path="/settings/tools" element={<ToolsPage />} />
            <Route path="/settings/memory" element={<MemoryPage />} />
            <Route path="/settings/account" element={<AccountPage />} />
            <Route path="/settings/users" element={<UsersPage />} />
            <Route path="/settings/secrets" element={<SecretsPage />} />
            <Route path="/admin/runs" element={<RunsConsolePage />} />
            <Route path="/admin/runs/:runId" element={<RunDetailPage />} />
            <Route path="/setup" element={<Navigate to="/" replace />} />
            <Route path="*" element={<NotFound />} />
          </Route>
          </Routes>
        </AppInfoProvider>
      </AuthGate>
    </ToastProvider>
  );
}
