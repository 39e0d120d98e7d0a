// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Composer } from "./Composer";

afterEach(cleanup);

function renderComposer(onSend = vi.fn()) {
  render(
    <Composer
      streaming={false}
      stopping={false}
      disabled={false}
      attachments={[]}
      uploading={false}
      onSend={onSend}
      onStop={() => undefined}
      onFiles={() => undefined}
      onRemoveAttachment={() => undefined}
      commands={[
        { name: "csv-insights", description: "Profile a table", argumentHint: "<file.csv>" },
        { name: "pdf", description: "Work with PDFs" },
      ]}
    />,
  );
  return screen.getByRole("textbox", { name: "Message" }) as HTMLTextAreaElement;
}

describe("Composer slash menu", () => {
  it("opens on /, moves with the arrow keys, picks with Enter, then sends on the next Enter", () => {
    const onSend = vi.fn();
    const box = renderComposer(onSend);
    fireEvent.change(box, { target: { value: "/" } });
    const options = screen.getAllByRole("option");
    expect(options.map((o) => o.textContent)).toEqual([
      "/csv-insights<file.csv>Profile a table",
      "/pdfWork with PDFs",
    ]);
    expect(box.getAttribute("aria-controls")).toBe(screen.getByRole("listbox").id);
    fireEvent.keyDown(box, { key: "ArrowDown" });
    expect(screen.getAllByRole("option")[1]?.getAttribute("aria-selected")).toBe("true");
    fireEvent.keyDown(box, { key: "Enter" });
    expect(box.value).toBe("/pdf ");
    expect(onSend).not.toHaveBeenCalled();
    expect(screen.queryByRole("listbox")).toBeNull();
    fireEvent.change(box, { target: { value: "/pdf merge a.pdf b.pdf" } });
    fireEvent.keyDown(box, { key: "Enter" });
    expect(onSend).toHaveBeenCalledWith("/pdf merge a.pdf b.pdf");
  });

  it("closes on Escape and lets Enter send what was typed", () => {
    const onSend = vi.fn();
    const box = renderComposer(onSend);
    fireEvent.change(box, { target: { value: "/cs" } });
    expect(screen.getAllByRole("option")).toHaveLength(1);
    fireEvent.keyDown(box, { key: "Escape" });
    expect(screen.queryByRole("listbox")).toBeNull();
    fireEvent.keyDown(box, { key: "Enter" });
    expect(onSend).toHaveBeenCalledWith("/cs");
  });
});
