import { describe, expect, it } from "vitest";
import { notebookReader } from "./notebook.js";
import { DEFAULT_READER_LIMITS } from "./types.js";

const read = (content: string | Uint8Array, limits = DEFAULT_READER_LIMITS) =>
  Promise.resolve(
    notebookReader.read({
      bytes: typeof content === "string" ? new TextEncoder().encode(content) : content,
      path: "nb.ipynb",
      limits,
    }),
  );

const notebook = (
  cells: unknown[],
  metadata: unknown = { kernelspec: { language: "python", name: "python3" } },
) => JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata, cells });

describe("notebookReader", () => {
  it("reads markdown cells as blocks, code in the kernel language and text outputs, each with its cell", async () => {
    const { blocks, metadata } = await read(
      notebook([
        {
          cell_type: "markdown",
          source: ["# Loading data\n", "\n", "Use **pandas**:\n", "\n", "- `read_csv`\n"],
        },
        {
          cell_type: "code",
          source: ["import pandas as pd\n", "df = pd.read_csv('a.csv')"],
          outputs: [
            { output_type: "stream", name: "stdout", text: ["\u001b[1mloaded\u001b[0m 3 rows\n"] },
            {
              output_type: "execute_result",
              data: { "text/plain": ["   a  b\n", "0  1  2"], "text/html": ["<table>…</table>"] },
            },
            {
              output_type: "display_data",
              data: { "image/png": "iVBORw0KGgo=", "text/plain": ["<Figure>"] },
            },
            { output_type: "error", ename: "KeyError", evalue: "'c'", traceback: ["\u001b[31m..."] },
          ],
        },
        { cell_type: "raw", source: "raw text" },
        { cell_type: "code", source: "", outputs: [] },
      ]),
    );
    expect(metadata).toEqual({ language: "python", cell_count: 4 });
    expect(blocks).toEqual([
      { kind: "heading", text: "Loading data", depth: 1, cell: 1 },
      { kind: "paragraph", text: "Use pandas:", cell: 1 },
      { kind: "list_item", text: "`read_csv`", cell: 1 },
      { kind: "code", text: "import pandas as pd\ndf = pd.read_csv('a.csv')", language: "python", cell: 2 },
      { kind: "code", text: "loaded 3 rows", language: "text", cell: 2 },
      { kind: "code", text: "   a  b\n0  1  2", language: "text", cell: 2 },
      { kind: "code", text: "<Figure>", language: "text", cell: 2 },
      { kind: "code", text: "KeyError: 'c'", language: "text", cell: 2 },
      { kind: "paragraph", text: "raw text", cell: 3 },
    ]);
  });

  it("takes the language from language_info and reads nbformat 3 worksheets", async () => {
    const v3 = JSON.stringify({
      nbformat: 3,
      metadata: { language_info: { name: "julia" } },
      worksheets: [
        {
          cells: [{ cell_type: "code", input: "println(1)", outputs: [{ output_type: "pyout", text: "1" }] }],
        },
      ],
    });
    expect((await read(v3)).blocks).toEqual([
      { kind: "code", text: "println(1)", language: "julia", cell: 1 },
      { kind: "code", text: "1", language: "text", cell: 1 },
    ]);
  });

  it("drops 50 MB of base64 image outputs and keeps the text", async () => {
    const base64 = "iVBORw0KGgo".padEnd(50 * 1024 * 1024, "A");
    const text = notebook([
      { cell_type: "markdown", source: "Plot of the results" },
      {
        cell_type: "code",
        source: "plot()",
        outputs: [
          { output_type: "display_data", data: { "image/png": base64, "application/pdf": base64 } },
          {
            output_type: "display_data",
            data: { "image/svg+xml": ["<svg>", "</svg>"], "text/plain": "<Axes>" },
          },
        ],
      },
    ]);
    const result = await read(text, { ...DEFAULT_READER_LIMITS, maxFileBytes: 128 * 1024 * 1024 });
    expect(result.blocks.map((block) => block.text)).toEqual(["Plot of the results", "plot()", "<Axes>"]);
    expect(JSON.stringify(result).length).toBeLessThan(1000);
  });

  it("calls invalid JSON and JSON without cells corrupt, and a notebook without text empty", async () => {
    await expect(read('{"cells": [')).rejects.toMatchObject({ code: "corrupt", message: /invalid JSON/ });
    await expect(read("[1, 2]")).rejects.toMatchObject({
      code: "corrupt",
      message: /expected a JSON object/,
    });
    await expect(read('{"nbformat": 4}')).rejects.toMatchObject({
      code: "corrupt",
      message: /found keys: nbformat/,
    });
    await expect(read(notebook([{ cell_type: "code", source: "  " }]))).rejects.toMatchObject({
      code: "empty",
    });
    await expect(read(new Uint8Array([0x7b, 0x00]))).rejects.toMatchObject({ code: "binary" });
  });
});
