// Server facts the whole UI needs: configured models and health.
import { createContext, useContext, type ReactNode } from "react";
import { api } from "../api/client";
import { errorMessage } from "../api/http";
import type { Health, ModelInfo } from "../api/types";
import { useResource } from "../lib/useResource";
import { setModels } from "./modelChoice";

export interface AppInfo {
  loaded: boolean;
  models: ModelInfo[];
  defaultModel?: ModelInfo;
  health?: Health;
  error?: string;
}

const NOT_LOADED: AppInfo = { loaded: false, models: [] };
const AppInfoContext = createContext<AppInfo>(NOT_LOADED);

export function useAppInfo(): AppInfo {
  return useContext(AppInfoContext);
}

/** Models and health, each optional: a failing call leaves the rest usable. Never rejects. */
async function loadAppInfo(): Promise<AppInfo> {
  const [models, health] = await Promise.allSettled([api.models(), api.health()]);
  const list = models.status === "fulfilled" ? models.value.models : [];
  const def =
    models.status === "fulfilled" ? (list.find((m) => m.name === models.value.default) ?? list[0]) : undefined;
  // The composer's picker and the runs' context read them outside React too.
  setModels(list, def?.name);
  return {
    loaded: true,
    models: list,
    ...(def ? { defaultModel: def } : {}),
    ...(health.status === "fulfilled" ? { health: health.value } : {}),
    ...(models.status === "rejected" ? { error: errorMessage(models.reason) } : {}),
  };
}

export function AppInfoProvider({ children }: { children: ReactNode }) {
  const { data } = useResource("app-info", loadAppInfo);
  const info = data ?? NOT_LOADED;
  return <AppInfoContext.Provider value={info}>{children}</AppInfoContext.Provider>;
}
