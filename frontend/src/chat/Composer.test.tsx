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

describe("Composer images", () => {
  it("hands pasted images over, shows them, and sends a message of images alone", () => {
    const onImages = vi.fn();
    const onSend = vi.fn();
    const onRemoveImage = vi.fn();
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
        images={[{ key: "k1", name: "dot.png", mimeType: "image/png", data: "AAAA" }]}
        onImages={onImages}
        onRemoveImage={onRemoveImage}
      />,
    );
    const box = screen.getByRole("textbox", { name: "Message" });
    const png = new File([new Uint8Array([137, 80, 78, 71])], "shot.png", { type: "image/png" });
    const text = new File(["x"], "notes.txt", { type: "text/plain" });
    fireEvent.paste(box, { clipboardData: { files: [png, text] } });
    expect(onImages).toHaveBeenCalledWith([png]);
    const thumb = screen.getByTestId("composer-image").querySelector("img") as HTMLImageElement;
    expect(thumb.src).toBe("data:image/png;base64,AAAA");
    fireEvent.click(screen.getByRole("button", { name: "Remove dot.png" }));
    expect(onRemoveImage).toHaveBeenCalledWith("k1");
    // No text, one image: the message can still be sent.
    fireEvent.click(screen.getByTestId("send-button"));
    expect(onSend).toHaveBeenCalledWith("");
  });
});

describe("Composer plan mode", () => {
  it("shows a Plan mode toggle that says whether it is on and hands the change over", () => {
    const onPlanMode = vi.fn();
    const props = {
      streaming: false,
      stopping: false,
      disabled: false,
      attachments: [],
      uploading: false,
      onSend: () => undefined,
      onStop: () => undefined,
      onFiles: () => undefined,
      onRemoveAttachment: () => undefined,
      onPlanMode,
    };
    const { rerender } = render(<Composer {...props} planMode={false} />);
    const toggle = screen.getByRole("button", { name: "Plan mode" });
    expect(toggle.getAttribute("aria-pressed")).toBe("false");
    fireEvent.click(toggle);
    expect(onPlanMode).toHaveBeenCalledWith(true);
    rerender(<Composer {...props} planMode />);
    expect(toggle.getAttribute("aria-pressed")).toBe("true");
    fireEvent.click(toggle);
    expect(onPlanMode).toHaveBeenLastCalledWith(false);
  });

  it("has no toggle when nothing handles it", () => {
    renderComposer();
    expect(screen.queryByRole("button", { name: "Plan mode" })).toBeNull();
  });
});
