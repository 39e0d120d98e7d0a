// The skills catalog with optimistic enable/disable (rolled back when the server refuses).
import { useCallback, useEffect, useState } from "react";
import { api } from "../api/client";
import { errorMessage } from "../api/http";
import type { Skill, SkillList } from "../api/types";
import { t } from "../i18n";

export function skillKey(s: Pick<Skill, "category" | "name">): string {
  return `${s.category}/${s.name}`;
}

export function useSkills(onError: (message: string) => void) {
  const [data, setData] = useState<SkillList | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState<Set<string>>(new Set());

  const load = useCallback(async () => {
    try {
      setData(await api.skills());
      setError(null);
    } catch (e) {
      setError(errorMessage(e));
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);

  const patch = (key: string, change: Partial<Skill>) =>
    setData((d) => d && { ...d, skills: d.skills.map((s) => (skillKey(s) === key ? { ...s, ...change } : s)) });

  const toggle = useCallback(
    async (skill: Skill, enabled: boolean) => {
      const key = skillKey(skill);
      patch(key, { enabled });
      setPending((p) => new Set(p).add(key));
      try {
        await api.setSkillEnabled(skill.name, { enabled, category: skill.category });
        // Shadowing may change for the other category's skill of the same name.
        setData(await api.skills());
      } catch (e) {
        patch(key, { enabled: !enabled });
        const failed = enabled ? "settings.common.couldNotEnable" : "settings.common.couldNotDisable";
        onError(t(failed, { name: skill.name, error: errorMessage(e) }));
      } finally {
        setPending((p) => {
          const next = new Set(p);
          next.delete(key);
          return next;
        });
      }
    },
    [onError],
  );

  const reload = useCallback(async () => {
    const list = await api.reloadSkills();
    setData(list);
    return list;
  }, []);

  return { data, error, load, toggle, reload, pending, setData };
}
