import { describe, expect, it } from "vitest";
import { textTable } from "./text-table.js";

describe("textTable", () => {
  it("aligns columns two spaces apart, leaves the last column unpadded and marks the header", () => {
    const rows = [
      ["mode", "calls", "note"],
      ["refine", "12", "long"],
      ["compact", "3", ""],
    ];
    expect(textTable(rows, (line) => `*${line}*`)).toEqual([
      "*mode     calls  note*",
      "refine   12     long",
      "compact  3",
    ]);
    expect(textTable([])).toEqual([]);
  });
});
