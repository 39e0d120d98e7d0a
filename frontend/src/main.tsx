import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { BrowserRouter } from "react-router-dom";
import { App } from "./App";
import { installFetchHooks } from "./api/csrf";
// First: the language is chosen before anything renders.
import "./i18n";
import "./styles/base.css";
import "./styles/layout.css";
import "./styles/components.css";
import "./styles/markdown.css";
import "./styles/rendering.css";
import "./styles/chat.css";
import "./styles/versions.css";
import "./styles/artifacts.css";
import "./styles/settings.css";
import "./styles/agents.css";
import "./styles/tools.css";
import "./styles/plan.css";
import "./styles/memory.css";
import "./styles/subtasks.css";
import "./styles/summary.css";
import "./styles/sources.css";
import "./styles/suggestions.css";
import "./styles/feedback.css";
import "./styles/search.css";
import "./styles/scheduled.css";
import "./styles/models.css";

installFetchHooks();

const root = document.getElementById("root");
if (root) {
  createRoot(root).render(
    <StrictMode>
      <BrowserRouter>
        <App />
      </BrowserRouter>
    </StrictMode>,
  );
}
