// Inline SVG icons (stroke style), decorative unless given a label.

const PATHS = {
  plus: "M12 5v14M5 12h14",
  trash: "M4 7h16M10 11v6M14 11v6M6 7l1 13h10l1-13M9 7V4h6v3",
  edit: "M4 20h4L19 9l-4-4L4 16v4zM13.5 6.5l4 4",
  copy: "M9 9h11v11H9zM5 15H4V4h11v1",
  check: "M5 12l5 5L20 7",
  stop: "M7 7h10v10H7z",
  send: "M4 12l16-8-6 16-3-7-7-1z",
  clip: "M21 11l-8.5 8.5a5 5 0 01-7-7L14 4a3.5 3.5 0 015 5l-8.5 8.5a2 2 0 01-3-3L15 7",
  file: "M6 3h8l4 4v14H6zM14 3v4h4",
  download: "M12 4v11M7 10l5 5 5-5M5 20h14",
  x: "M6 6l12 12M18 6L6 18",
  menu: "M4 6h16M4 12h16M4 18h16",
  sun: "M12 4V2M12 22v-2M4 12H2M22 12h-2M5.6 5.6L4.2 4.2M19.8 19.8l-1.4-1.4M5.6 18.4l-1.4 1.4M19.8 4.2l-1.4 1.4M12 8a4 4 0 100 8 4 4 0 000-8z",
  moon: "M20 14.5A8 8 0 019.5 4 8 8 0 1020 14.5z",
  monitor: "M3 4h18v12H3zM8 20h8M12 16v4",
  chevron: "M9 6l6 6-6 6",
  chevronLeft: "M15 6l-6 6 6 6",
  refresh: "M20 11a8 8 0 10-2.3 5.7M20 4v7h-7",
  upload: "M12 20V9M7 14l5-5 5 5M5 4h14",
  folder: "M3 6h6l2 2h10v11H3z",
  alert: "M12 3l10 18H2zM12 10v5M12 18v.5",
  panel: "M3 4h18v16H3zM15 4v16",
  info: "M12 22a10 10 0 100-20 10 10 0 000 20zM12 11v6M12 7v.5",
  external: "M14 4h6v6M20 4l-9 9M18 14v6H4V6h6",
  brain: "M9 4a3 3 0 00-3 3 3 3 0 00-2 5 3 3 0 002 5 3 3 0 006 1V5a3 3 0 00-3-1zM15 4a3 3 0 013 3 3 3 0 012 5 3 3 0 01-2 5 3 3 0 01-6 1",
  tool: "M14 6a4 4 0 01-5 5l-5 5 3 3 5-5a4 4 0 005-5l-2 2-2-2 2-2-1-1z",
  search: "M11 4a7 7 0 100 14 7 7 0 000-14zM20 20l-4-4",
  user: "M12 12a4 4 0 100-8 4 4 0 000 8zM4 21a8 8 0 0116 0",
  logout: "M14 4h5v16h-5M10 8l-4 4 4 4M6 12h11",
  archive: "M3 4h18v4H3zM5 8v12h14V8M10 12h4",
  delegate: "M4 5h10M4 10h7M4 15h5M13 12h8M18 9l3 3-3 3",
  clock: "M12 22a10 10 0 100-20 10 10 0 000 20zM12 7v5l3 3",
  checklist: "M3 6l1.5 1.5L7 5M3 12l1.5 1.5L7 11M3 18l1.5 1.5L7 17M11 6h10M11 12h10M11 18h10",
} as const;

export type IconName = keyof typeof PATHS;

export function Icon({ name, label, size = 16 }: { name: IconName; label?: string; size?: number }) {
  return (
    <svg
      className="icon"
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={2}
      strokeLinecap="round"
      strokeLinejoin="round"
      role={label ? "img" : undefined}
      aria-label={label}
      aria-hidden={label ? undefined : true}
      focusable="false"
    >
      <path d={PATHS[name]} />
    </svg>
  );
}
