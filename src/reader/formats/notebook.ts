import { markdownToBlocks } from "./mdast-blocks.js";
import { decodeText } from "./plain-text.js";
import type { DocumentBlock, DocumentReader, ReaderInput, ReadFileResult } from "./types.js";
import { ReaderSkipError } from "./types.js";

// Output data kept as text; every other MIME type (images, HTML, widgets, PDFs) is dropped while parsing.
const TEXT_MIME_TYPES = new Set(["text/plain", "text/markdown"]);

interface Cell {
  cell_type?: unknown;
  source?: unknown;
  input?: unknown;
  outputs?: unknown;
}

/**
 * Reads Jupyter notebooks (`.ipynb`, nbformat 4, and 3's worksheets): markdown cells as Markdown blocks, code cells
 * as code in the kernel's language, and their text outputs (streams, `text/plain` results, error names) as
 * `text` code blocks. Base64 images and other binary outputs are dropped. Every block carries its 1-based `cell`.
 */
export const notebookReader: DocumentReader = {
  format: "notebook",
  extensions: [".ipynb"],
  async read({ bytes, path, signal }: ReaderInput): Promise<ReadFileResult> {
    const notebook = parseNotebook(decodeText(bytes, path), path);
    const metadata = record(notebook.metadata);
    const language =
      stringOf(record(metadata.kernelspec).language) ??
      stringOf(record(metadata.language_info).name) ??
      "python";
    const cells = cellsOf(notebook, path);
    const blocks: DocumentBlock[] = [];
    for (const [index, cell] of cells.entries()) {
      signal?.throwIfAborted();
      const number = index + 1;
      const source = joinSource(cell.source ?? cell.input);
      if (cell.cell_type === "markdown") {
        blocks.push(...(await markdownToBlocks(source, { cell: number, withLines: false })));
      } else if (cell.cell_type === "code") {
        if (source.trim() !== "") blocks.push({ kind: "code", text: source, language, cell: number });
        for (const text of outputTexts(cell.outputs))
          blocks.push({ kind: "code", text, language: "text", cell: number });
      } else if (source.trim() !== "") {
        blocks.push({ kind: "paragraph", text: source.trim(), cell: number });
      }
    }
    if (blocks.length === 0)
      throw new ReaderSkipError("empty", `${path}: a notebook with no text in its cells.`);
    return { blocks, metadata: { language, cell_count: cells.length } };
  },
};

function parseNotebook(text: string, path: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    // The reviver runs as each value is built, so a base64 image is dropped before the next one is parsed.
    parsed = JSON.parse(text, (key, value) =>
      key.includes("/") && !TEXT_MIME_TYPES.has(key) ? undefined : value,
    );
  } catch (error) {
    throw new ReaderSkipError(
      "corrupt",
      `${path}: not a Jupyter notebook (invalid JSON: ${error instanceof Error ? error.message : String(error)}).`,
    );
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new ReaderSkipError(
      "corrupt",
      `${path}: not a Jupyter notebook (expected a JSON object with "cells").`,
    );
  }
  return parsed as Record<string, unknown>;
}

function cellsOf(notebook: Record<string, unknown>, path: string): Cell[] {
  if (Array.isArray(notebook.cells)) return notebook.cells.map((cell) => record(cell) as Cell);
  if (Array.isArray(notebook.worksheets)) {
    return notebook.worksheets.flatMap((sheet) => {
      const cells = record(sheet).cells;
      return Array.isArray(cells) ? cells.map((cell) => record(cell) as Cell) : [];
    });
  }
  throw new ReaderSkipError(
    "corrupt",
    `${path}: not a Jupyter notebook (expected "cells" (nbformat 4) or "worksheets" (nbformat 3), found keys: ${Object.keys(notebook).slice(0, 8).join(", ") || "none"}).`,
  );
}

function outputTexts(outputs: unknown): string[] {
  if (!Array.isArray(outputs)) return [];
  const texts: string[] = [];
  for (const item of outputs) {
    const output = record(item);
    let text = "";
    if (output.output_type === "stream") text = joinSource(output.text);
    else if (output.output_type === "error")
      text = `${stringOf(output.ename) ?? "Error"}: ${stringOf(output.evalue) ?? ""}`;
    else {
      // nbformat 4 keeps results under `data`; nbformat 3 put `text` on the output itself.
      const data = record(output.data);
      text = joinSource(data["text/plain"] ?? data["text/markdown"] ?? output.text);
    }
    // biome-ignore lint/suspicious/noControlCharactersInRegex: terminal colour codes in outputs are noise.
    text = text.replace(/\u001b\[[0-9;]*[A-Za-z]/g, "").trimEnd();
    if (text.trim() !== "") texts.push(text);
  }
  return texts;
}

function joinSource(source: unknown): string {
  if (typeof source === "string") return source;
  if (Array.isArray(source)) return source.filter((part) => typeof part === "string").join("");
  return "";
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function stringOf(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}
