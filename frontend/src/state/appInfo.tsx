// Server facts the whole UI needs: configured models and health.
import { createContext, useContext, useEffect, useState, type ReactNode } from "react";
import { api } from "../api/client";
import { errorMessage } from "../api/http";
import type { Health, ModelInfo } from "../api/types";

export interface AppInfo {
  loaded: boolean;
  models: ModelInfo[];
  defaultModel?: ModelInfo;
  health?: Health;
  error?: string;
}

const AppInfoContext = createContext<AppInfo>({ loaded: false, models: [] });

export function useAppInfo(): AppInfo {
  return useContext(AppInfoContext);
}

export function AppInfoProvider({ children }: { children: ReactNode }) {
  const [info, setInfo] = useState<AppInfo>({ loaded: false, models: [] });
  useEffect(() => {
    let cancelled = false;
    Promise.allSettled([api.models(), api.health()]).then(([models, health]) => {
      if (cancelled) return;
      const list = models.status === "fulfilled" ? models.value.models : [];
      const def =
        models.status === "fulfilled"
          ? (list.find((m) => m.name === models.value.default) ?? list[0])
          : undefined;
      setInfo({
        loaded: true,
        models: list,
        ...(def ? { defaultModel: def } : {}),
        ...(health.status === "fulfilled" ? { health: health.value } : {}),
        ...(models.status === "rejected" ? { error: errorMessage(models.reason) } : {}),
      });
    });
    return () => {
      cancelled = true;
    };
  }, []);
  return <AppInfoContext.Provider value={info}>{children}</AppInfoContext.Provider>;
}
