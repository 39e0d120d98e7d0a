import { describe, expect, it } from "vitest";
import { MAX_IMAGE_BYTES, splitDropped } from "./usePastedImages";

const file = (name: string, type: string, size = 10) => new File([new Uint8Array(size)], name, { type });

describe("dropped files", () => {
  const png = file("a.png", "image/png");
  const csv = file("b.csv", "text/csv");
  const huge = file("c.jpg", "image/jpeg", MAX_IMAGE_BYTES + 1);
  const svg = file("d.svg", "image/svg+xml");

  it("send images a seeing model takes with the message and upload the rest", () => {
    expect(splitDropped([png, csv, huge, svg], true)).toEqual({ inline: [png], rest: [csv, huge, svg] });
  });

  it("upload everything for a model that cannot see", () => {
    expect(splitDropped([png, csv], false)).toEqual({ inline: [], rest: [png, csv] });
  });
});
