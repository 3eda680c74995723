import { describe, expect, it } from "vitest";
import { csvReader } from "./csv.js";
import { DEFAULT_READER_LIMITS } from "./types.js";

const read = (text: string | Uint8Array, path = "people.csv") =>
  Promise.resolve(
    csvReader.read({
      bytes: typeof text === "string" ? new TextEncoder().encode(text) : text,
      path,
      limits: DEFAULT_READER_LIMITS,
    }),
  );

describe("csvReader", () => {
  it("reads a row per record with its header and the lines it spans, quoted newlines included", async () => {
    const csv = [
      "name,year,note",
      "Ada,1815,first programmer",
      'Grace,1906,"said ""it\'s easier to ask forgiveness"",',
      'then COBOL"',
      "",
      "Alan,,",
      "Edsger,1930,,extra",
    ].join("\r\n");
    const { blocks, metadata } = await read(csv);
    expect(blocks).toEqual([
      {
        kind: "table_row",
        text: "name: Ada; year: 1815; note: first programmer",
        lines: { start: 2, end: 2 },
      },
      {
        kind: "table_row",
        text: 'name: Grace; year: 1906; note: said "it\'s easier to ask forgiveness",\nthen COBOL',
        lines: { start: 3, end: 4 },
      },
      { kind: "table_row", text: "name: Alan", lines: { start: 6, end: 6 } },
      { kind: "table_row", text: "name: Edsger; year: 1930; column 4: extra", lines: { start: 7, end: 7 } },
    ]);
    expect(metadata).toEqual({ columns: "name, year, note", row_count: 4 });
  });

  it("splits TSV on tabs and names empty header cells", async () => {
    const { blocks } = await read("id\t\tvalue\n1\ta, b\tx\n", "data.tsv");
    expect(blocks).toEqual([
      { kind: "table_row", text: "id: 1; column 2: a, b; value: x", lines: { start: 2, end: 2 } },
    ]);
  });

  it("reads a header-only file as its header row", async () => {
    expect((await read("a,b\n")).blocks).toEqual([
      { kind: "table_row", text: "a | b", lines: { start: 1, end: 1 } },
    ]);
  });

  it("reads a file with an unclosed quote as plain text and says why", async () => {
    const { blocks, metadata } = await read('a,b\n1,"never closed\n\nmore');
    expect(metadata?.csv_fallback).toMatch(/^not valid CSV \(.*[Qq]uote.*\); read as plain text$/);
    expect(blocks.map((block) => block.lines)).toEqual([
      { start: 1, end: 2 },
      { start: 4, end: 4 },
    ]);
  });

  it("skips empty, binary and invalid UTF-8 files with their reason", async () => {
    await expect(read("\n\n")).rejects.toMatchObject({ code: "empty" });
    await expect(read(new Uint8Array([0x61, 0x00]))).rejects.toMatchObject({ code: "binary" });
    await expect(
      read(new Uint8Array([0x61, 0x2c, 0xf0, 0xd2, 0xc9, 0xd7, 0xc5, 0xd4, 0x0a])),
    ).rejects.toMatchObject({
      code: "invalid_utf8",
    });
  });
});
