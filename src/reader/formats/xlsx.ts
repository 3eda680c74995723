/**
 * Excel workbooks (`.xlsx`, `.xlsm`; a legacy `.xls` is refused with how to convert it). Read as the CSV reader reads
 * a table, sheet by sheet: the sheet's name as a heading, its first row with text as the header, and every other row
 * one `table_row` naming its cells (`Team: Search; Budget: 120000; Start: 2024-01-02`) with its row number. A cell
 * shows what Excel shows where that is plain: shared and inline strings, numbers, booleans (`TRUE`), errors, a date
 * (a number in a date format: built-in or one of days, months and years) as its ISO date, a formula as its last
 * computed value (the formula itself when the file holds none). Hidden sheets are read too (their text is the
 * workbook's); charts, comments and pivot caches are not.
 *
 * A workbook is a zip of SpreadsheetML parts (ECMA-376), checked by the zip guard and walked with htmlparser2 in XML
 * mode, as PPTX is. The well-known JavaScript reader, SheetJS, is no longer published to npm (its npm package stays
 * at 0.18.5, with open advisories), and `exceljs` brings a stream and archive stack for writing too.
 */

import { type SheetRow, sheetBlocks } from "./named-rows.js";
import { CORE_PROPERTIES, decodeXmlText, packageTitle, refuseCompoundFile } from "./office-package.js";
import { walkXml } from "./streaming-parser.js";
import type { DocumentBlock, DocumentReader, ReaderInput, ReadFileResult } from "./types.js";
import { ReaderSkipError } from "./types.js";
import { checkZip } from "./zip-guard.js";

const WORKBOOK = "xl/workbook.xml";
const WORKBOOK_RELS = "xl/_rels/workbook.xml.rels";
const SHARED_STRINGS = "xl/sharedStrings.xml";
const STYLES = "xl/styles.xml";
const SHEET = /^xl\/worksheets\/[^/]+\.xml$/;
// Built-in number formats that show a date or time, and percentages with their decimals (ECMA-376 18.8.30).
const BUILT_IN_DATES = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 45, 46, 47]);
const BUILT_IN_PERCENTS = new Map([
  [9, 0],
  [10, 2],
]);

/** How a cell style shows a number, where it is not as stored: a date, or a percentage with so many decimals. */
type NumberStyle = { date: true } | { percentDecimals: number };

/** Reads Excel workbooks (`.xlsx`, `.xlsm`). */
export const xlsxReader: DocumentReader = {
  format: "xlsx",
  extensions: [".xlsx", ".xlsm", ".xls"],
  async read({ bytes, path, limits, signal }: ReaderInput): Promise<ReadFileResult> {
    refuseCompoundFile(bytes, path, { name: "XLSX", legacy: "Excel (.xls)", ending: ".xlsx" });
    const { entries, text } = await checkZip({
      bytes,
      path,
      limits,
      keep: (name) =>
        name === WORKBOOK ||
        name === WORKBOOK_RELS ||
        name === SHARED_STRINGS ||
        name === STYLES ||
        name === CORE_PROPERTIES ||
        SHEET.test(name),
    });
    signal?.throwIfAborted();
    const workbook = text(WORKBOOK);
    if (workbook === undefined)
      throw new ReaderSkipError("corrupt", `${path}: not an Excel workbook (no xl/workbook.xml).`);
    const strings = sharedStrings(text(SHARED_STRINGS) ?? "");
    const styles = numberStyles(text(STYLES) ?? "");
    const date1904 = /<workbookPr\b[^>]*\bdate1904="(?:1|true)"/.test(workbook);
    const sheets = workbookSheets(workbook, text(WORKBOOK_RELS));
    const blocks: DocumentBlock[] = [];
    for (const sheet of sheets) {
      signal?.throwIfAborted();
      const xml = text(sheet.part);
      if (xml === undefined) continue;
      const rows = sheetRows(xml, strings, (style, value) => {
        const shown = styles.get(style);
        if (!shown) return undefined;
        return "date" in shown ? isoDate(value, date1904) : percent(value, shown.percentDecimals);
      });
      for (const block of sheetBlocks(sheet.name, rows)) blocks.push(block);
    }
    if (blocks.length === 0)
      throw new ReaderSkipError("empty", `${path}: no cells with text in its ${sheets.length} sheets.`);
    const metadata: Record<string, string | number> = { sheet_count: sheets.length };
    const title = packageTitle(entries.get(CORE_PROPERTIES));
    if (title) metadata.title = title;
    return { blocks, metadata };
  },
};

/** The workbook's sheets in its order, each with its name and part. */
function workbookSheets(workbook: string, rels: string | undefined): { name: string; part: string }[] {
  const targets = new Map<string, string>();
  for (const match of (rels ?? "").matchAll(/<Relationship\b([^>]*)\/?>/g)) {
    const id = /\bId="([^"]+)"/.exec(match[1] as string)?.[1];
    const target = /\bTarget="([^"]+)"/.exec(match[1] as string)?.[1];
    if (id && target)
      targets.set(id, target.startsWith("/") ? target.slice(1) : `xl/${target.replace(/^\.\//, "")}`);
  }
  const sheets: { name: string; part: string }[] = [];
  for (const match of workbook.matchAll(/<sheet\b([^>]*)\/?>/g)) {
    const attributes = match[1] as string;
    const name = /\bname="([^"]*)"/.exec(attributes)?.[1];
    const id = /\br:id="([^"]+)"/.exec(attributes)?.[1];
    const part = id === undefined ? undefined : targets.get(id);
    if (name !== undefined && part !== undefined) sheets.push({ name: decodeXmlText(name), part });
  }
  return sheets;
}

/** The shared strings, in order: each `<si>`'s text (its runs joined). */
function sharedStrings(xml: string): string[] {
  const strings: string[] = [];
  let current: string[] | undefined;
  let inText = false;
  let inPhonetic = false;
  walkXml(xml, {
    onopentag(name) {
      if (name === "si") current = [];
      else if (name === "rPh") inPhonetic = true;
      else if (name === "t" && !inPhonetic) inText = true;
    },
    ontext(text) {
      if (inText) current?.push(text);
    },
    onclosetag(name) {
      if (name === "t") inText = false;
      else if (name === "rPh") inPhonetic = false;
      else if (name === "si" && current) {
        strings.push(current.join(""));
        current = undefined;
      }
    },
  });
  return strings;
}

/** The cell styles (`cellXfs` indexes) whose number format shows a date or a percentage. */
function numberStyles(xml: string): Map<number, NumberStyle> {
  const custom = new Map<number, string>();
  for (const match of xml.matchAll(/<numFmt\b[^>]*\bnumFmtId="(\d+)"[^>]*\bformatCode="([^"]*)"/g))
    custom.set(Number(match[1]), decodeXmlText(match[2] as string));
  const styles = new Map<number, NumberStyle>();
  const cellXfs = /<cellXfs\b[^>]*>([\s\S]*?)<\/cellXfs>/.exec(xml)?.[1] ?? "";
  let index = 0;
  for (const match of cellXfs.matchAll(/<xf\b([^>]*?)\/?>/g)) {
    const id = Number(/\bnumFmtId="(\d+)"/.exec(match[1] as string)?.[1] ?? 0);
    const code = custom.get(id);
    const decimals = BUILT_IN_PERCENTS.get(id) ?? (code === undefined ? undefined : percentDecimals(code));
    if (BUILT_IN_DATES.has(id) || (code !== undefined && isDateFormat(code)))
      styles.set(index, { date: true });
    else if (decimals !== undefined) styles.set(index, { percentDecimals: decimals });
    index++;
  }
  return styles;
}

/**
 * The decimals a custom number format shows a percentage with (`0.0%` → 1), or undefined when its first section
 * (the one for positive numbers) has no `%` outside quoted text and escapes.
 */
function percentDecimals(code: string): number | undefined {
  const first = (code.replace(/"[^"]*"|\\.|\[[^\]]*\]/g, "").split(";")[0] ?? "").trim();
  if (!first.includes("%")) return undefined;
  return /\.([0#?]+)/.exec(first)?.[1]?.length ?? 0;
}

/** A stored fraction as a percentage with `decimals` (`0.256`, 1 → `25.6%`); undefined when not a number. */
function percent(value: string, decimals: number): string | undefined {
  const number = Number(value);
  if (value.trim() === "" || !Number.isFinite(number)) return undefined;
  return `${(number * 100).toFixed(decimals)}%`;
}

/** A custom number format shows a date when, outside quoted text, escapes and `[…]` codes, it has y, d or m with y/d. */
function isDateFormat(code: string): boolean {
  const bare = code.replace(/"[^"]*"|\\.|\[[^\]]*\]/g, "").toLowerCase();
  return /[yd]/.test(bare) && !/^[#0.,%e+\-\s]*$/.test(bare);
}

/** An Excel serial date as `YYYY-MM-DD` (with the time when it has one); undefined when out of range. */
function isoDate(value: string, date1904: boolean): string | undefined {
  const serial = Number(value);
  if (!Number.isFinite(serial) || serial < 0 || serial > 2958465) return undefined;
  // Day 0 is 1899-12-31 in Excel's 1900 system, which counts a 29 February 1900 that was not: from day 61 on, the
  // epoch is one day earlier.
  const epoch = date1904
    ? Date.UTC(1904, 0, 1)
    : serial < 61
      ? Date.UTC(1899, 11, 31)
      : Date.UTC(1899, 11, 30);
  const date = new Date(epoch + Math.round(serial * 86_400_000));
  const day = date.toISOString().slice(0, 10);
  const time = date.toISOString().slice(11, 19);
  return serial % 1 === 0 ? day : `${day} ${time}`;
}

/** A sheet's rows with text: row number and cells by column index. */
function sheetRows(
  xml: string,
  strings: readonly string[],
  dateOf: (style: number, value: string) => string | undefined,
): SheetRow[] {
  const rows: SheetRow[] = [];
  let row: SheetRow | undefined;
  let nextRow = 1;
  let cell: { column: number; type: string; style: number; value: string[]; formula: string[] } | undefined;
  let nextColumn = 0;
  let into: string[] | undefined;
  walkXml(xml, {
    onopentag(name, attributes) {
      if (name === "row") {
        const number = Number(attributes.r ?? nextRow);
        row = { row: number, cells: new Map() };
        nextRow = number + 1;
        nextColumn = 0;
      } else if (name === "c" && row) {
        const column = attributes.r === undefined ? nextColumn : columnIndex(attributes.r);
        nextColumn = column + 1;
        cell = {
          column,
          type: attributes.t ?? "n",
          style: Number(attributes.s ?? 0),
          value: [],
          formula: [],
        };
      } else if (cell && (name === "v" || name === "t")) into = cell.value;
      else if (cell && name === "f") into = cell.formula;
    },
    ontext(text) {
      into?.push(text);
    },
    onclosetag(name) {
      if (name === "v" || name === "t" || name === "f") into = undefined;
      else if (name === "c" && cell && row) {
        const shown = cellText(cell, strings, dateOf);
        if (shown !== "") row.cells.set(cell.column, shown);
        cell = undefined;
      } else if (name === "row" && row) {
        if (row.cells.size > 0) rows.push(row);
        row = undefined;
      }
    },
  });
  return rows;
}

function cellText(
  cell: { type: string; style: number; value: string[]; formula: string[] },
  strings: readonly string[],
  dateOf: (style: number, value: string) => string | undefined,
): string {
  const value = cell.value.join("");
  if (value === "" && cell.formula.length > 0) return `=${cell.formula.join("")}`.trim();
  switch (cell.type) {
    case "s":
      return (strings[Number(value)] ?? "").trim();
    case "b":
      return value === "1" ? "TRUE" : value === "0" ? "FALSE" : value;
    case "n":
      return dateOf(cell.style, value) ?? value.trim();
    default:
      return value.trim();
  }
}

/** `AB12` → 27 (0-based column). */
function columnIndex(reference: string): number {
  let column = 0;
  for (const char of reference) {
    const code = char.charCodeAt(0);
    if (code < 65 || code > 90) break;
    column = column * 26 + (code - 64);
  }
  return Math.max(0, column - 1);
}
