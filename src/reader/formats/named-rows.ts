import type { DocumentBlock } from "./types.js";

// A spreadsheet's rows as blocks (XLSX and ODS sheets): what the CSV reader does with a table, for rows read from a
// grid with their numbers.

/** A row of a sheet with text: its 1-based number and its cells' text by 0-based column. */
export interface SheetRow {
  row: number;
  cells: Map<number, string>;
}

/**
 * A table's blocks, as the CSV reader makes them: the first row is the header, each other row names its cells. Rows
 * of one cell above a wider row (a sheet's title, a note) are paragraphs before the table, not its header.
 */
export function namedRowBlocks(all: readonly SheetRow[]): DocumentBlock[] {
  const blocks: DocumentBlock[] = [];
  let start = 0;
  while (start + 1 < all.length && all[start]?.cells.size === 1 && (all[start + 1]?.cells.size ?? 0) > 1) {
    const { row, cells } = all[start] as SheetRow;
    blocks.push({ kind: "paragraph", text: [...cells.values()][0] as string, row });
    start++;
  }
  const [header, ...body] = all.slice(start);
  if (header === undefined) return blocks;
  const name = (column: number) => header.cells.get(column) ?? `column ${column + 1}`;
  if (body.length === 0) {
    const cells = [...header.cells].sort(([left], [right]) => left - right).map(([, text]) => text);
    blocks.push({ kind: "table_row", text: cells.join(" | "), row: header.row });
    return blocks;
  }
  for (const { row, cells } of body) {
    const fields = [...cells]
      .sort(([left], [right]) => left - right)
      .map(([column, text]) => `${name(column)}: ${text}`);
    blocks.push({ kind: "table_row", text: fields.join("; "), row });
  }
  return blocks;
}

/** A sheet's blocks: its name as a heading (at its first row), then {@link namedRowBlocks}; none for no text. */
export function sheetBlocks(name: string, rows: readonly SheetRow[]): DocumentBlock[] {
  const table = namedRowBlocks(rows);
  const first = rows[0]?.row;
  if (table.length === 0) return [];
  return [
    { kind: "heading", depth: 1, text: name, ...(first === undefined ? {} : { row: first }) },
    ...table,
  ];
}
