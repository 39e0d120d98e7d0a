// A value that follows another once it has stopped changing for a while (search boxes: one
// request when typing pauses, not one per key).
import { useEffect, useState } from "react";

/** `value`, `ms` milliseconds after its last change. */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}
