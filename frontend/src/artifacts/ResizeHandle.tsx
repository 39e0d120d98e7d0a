// A vertical splitter: drag with the pointer, or focus it and use the arrow keys.
import { useRef } from "react";

export function ResizeHandle({
  width,
  min,
  max,
  onResize,
  label,
}: {
  width: number;
  min: number;
  max: number;
  onResize: (width: number) => void;
  label: string;
}) {
  const start = useRef<{ x: number; width: number } | null>(null);
  const clamp = (w: number) => Math.round(Math.min(max, Math.max(min, w)));
  return (
    <div
      className="resize-handle"
      role="separator"
      aria-orientation="vertical"
      aria-label={label}
      aria-valuenow={width}
      aria-valuemin={min}
      aria-valuemax={max}
      tabIndex={0}
      onPointerDown={(e) => {
        start.current = { x: e.clientX, width };
        e.currentTarget.setPointerCapture(e.pointerId);
      }}
      onPointerMove={(e) => {
        if (!start.current) return;
        // The panel is on the right: dragging left widens it.
        onResize(clamp(start.current.width + (start.current.x - e.clientX)));
      }}
      onPointerUp={(e) => {
        start.current = null;
        e.currentTarget.releasePointerCapture(e.pointerId);
      }}
      onKeyDown={(e) => {
        const step = e.shiftKey ? 96 : 24;
        if (e.key === "ArrowLeft") onResize(clamp(width + step));
        else if (e.key === "ArrowRight") onResize(clamp(width - step));
        else if (e.key === "Home") onResize(max);
        else if (e.key === "End") onResize(min);
        else return;
        e.preventDefault();
      }}
    />
  );
}
