import { checkObject } from "../errors/check-options.js";
import type { TextNode } from "./text-node.js";

/** A 1-based, inclusive range: lines, pages, notebook cells, slides or spreadsheet rows. */
export interface LocationRange {
  start: number;
  end: number;
}

/**
 * Where a chunk sits in its source: the file, the headings above it, and its lines (text formats), pages (PDF)
 * cells (notebooks), slides (presentations) or rows (spreadsheets). Kept in a node's metadata under `location`, hidden from the LLM and the embedder, so it
 * survives a saved index and is shown with the sources.
 */
export interface NodeLocation {
  /** The file's path as the user gave it (its `file_path`). */
  file?: string;
  /** The texts of the headings the chunk sits under, outermost first; empty before the first heading. */
  headingPath?: string[];
  /** The source lines the chunk's text comes from. */
  lines?: LocationRange;
  /** The PDF pages the chunk's text comes from. */
  pages?: LocationRange;
  /** The notebook cells the chunk's text comes from. */
  cells?: LocationRange;
  /** The slides the chunk's text comes from (their numbers in the presentation's order). */
  slides?: LocationRange;
  /** The spreadsheet rows the chunk's text comes from (the sheet is in `headingPath`). */
  rows?: LocationRange;
}

/** The metadata key a node's {@link NodeLocation} is kept under. */
export const LOCATION_KEY = "location";

/**
 * The location a node carries, or undefined. Checked field by field (a loaded index is untrusted input): a
 * malformed part is left out rather than shown.
 */
export function getNodeLocation(node: Pick<TextNode, "metadata">): NodeLocation | undefined {
  const hint = "Pass a retrieved node's node: getNodeLocation(entry.node).";
  checkObject("node", node, "be a node (a TextNode, or an object with its metadata)", hint);
  checkObject("node.metadata", node.metadata, "be an object", hint);
  const raw = node.metadata[LOCATION_KEY];
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return undefined;
  const record = raw as Record<string, unknown>;
  const location: NodeLocation = {};
  if (typeof record.file === "string") location.file = record.file;
  if (Array.isArray(record.headingPath) && record.headingPath.every((part) => typeof part === "string")) {
    location.headingPath = [...record.headingPath];
  }
  for (const key of ["lines", "pages", "cells", "slides", "rows"] as const) {
    const range = toRange(record[key]);
    if (range) location[key] = range;
  }
  return Object.keys(location).length > 0 ? location : undefined;
}

function toRange(value: unknown): LocationRange | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { start, end } = value as Record<string, unknown>;
  return Number.isInteger(start) &&
    Number.isInteger(end) &&
    (start as number) >= 1 &&
    (end as number) >= (start as number)
    ? { start: start as number, end: end as number }
    : undefined;
}

/**
 * A location as people read it: `guide.md:120–168 › Configuration › Timeouts`, `spec.pdf p. 12 › 2.3 Glob
 * weights`, `spec.pdf pp. 12–13`, `notebook.ipynb cell 4`, `deck.pptx slide 3 › Roadmap`,
 * `plan.xlsx rows 2–40 › Budget`. `file` overrides the location's own file name.
 * @example formatNodeLocation({ file: "a.md", lines: { start: 3, end: 9 }, headingPath: ["Setup"] }) // "a.md:3–9 › Setup"
 */
export function formatNodeLocation(location: NodeLocation, file?: string): string {
  checkObject(
    "location",
    location,
    "be a NodeLocation ({ file?, headingPath?, lines?, pages?, cells?, slides?, rows? })",
    "getNodeLocation(node) gives a node's.",
  );
  let text = file ?? location.file ?? "";
  const { lines, pages, cells, slides, rows, headingPath = [] } = location;
  if (lines) text += `:${span(lines)}`;
  if (pages) text += ` ${pages.start === pages.end ? "p." : "pp."} ${span(pages)}`;
  if (cells) text += ` ${cells.start === cells.end ? "cell" : "cells"} ${span(cells)}`;
  if (slides) text += ` ${slides.start === slides.end ? "slide" : "slides"} ${span(slides)}`;
  if (rows) text += ` ${rows.start === rows.end ? "row" : "rows"} ${span(rows)}`;
  const path = headingPath.filter((heading) => heading.trim() !== "");
  if (path.length > 0) text += ` › ${path.join(" › ")}`;
  return text.trim();
}

function span({ start, end }: LocationRange): string {
  return start === end ? String(start) : `${start}–${end}`;
}
