// reStructuredText tables → rows of cell texts, for the RST reader: grid tables (`+---+`), simple tables
// (`===  ===`), and the `list-table` / `csv-table` directives' bodies.

/** A table row: cell texts (inline markup not yet stripped) and the 0-based index of its first and last line. */
export interface RstRow {
  cells: string[];
  first: number;
  last: number;
}

const GRID_BORDER = /^\+(?:[-=]+\+)+\s*$/;
const SIMPLE_BORDER = /^=+(?: +=+)+\s*$/;

/** True when `line` starts a grid table. */
export const isGridBorder = (line: string): boolean => GRID_BORDER.test(line);
/** True when `line` is a simple table's border. */
export const isSimpleBorder = (line: string): boolean => SIMPLE_BORDER.test(line);

/** Reads a grid table starting at `start`; returns its rows and the index after its last line. */
export function readGridTable(lines: readonly string[], start: number): { rows: RstRow[]; end: number } {
  const border = lines[start] as string;
  const columns: Array<[number, number]> = [];
  for (
    let from = 0, plus = border.indexOf("+", 1);
    plus !== -1;
    from = plus, plus = border.indexOf("+", plus + 1)
  ) {
    columns.push([from + 1, plus]);
  }
  const rows: RstRow[] = [];
  let cells: string[][] = columns.map(() => []);
  let first = -1;
  let index = start + 1;
  for (; index < lines.length; index++) {
    const line = lines[index] as string;
    if (!line.startsWith("+") && !line.startsWith("|")) break;
    if (GRID_BORDER.test(line)) {
      if (first !== -1)
        rows.push({ cells: cells.map((parts) => parts.join(" ").trim()), first, last: index - 1 });
      cells = columns.map(() => []);
      first = -1;
      continue;
    }
    if (first === -1) first = index;
    for (const [column, [from, to]] of columns.entries()) {
      const part = line.slice(from, to).replace(/^\|/, "").replace(/\|$/, "").trim();
      if (part !== "") cells[column]?.push(part);
    }
  }
  return { rows, end: index };
}

/** Reads a simple table starting at its top border; returns its rows and the index after its bottom border. */
export function readSimpleTable(lines: readonly string[], start: number): { rows: RstRow[]; end: number } {
  const border = lines[start] as string;
  const columns: Array<[number, number]> = [];
  for (const match of border.matchAll(/=+/g)) columns.push([match.index, match.index + match[0].length]);
  const rows: RstRow[] = [];
  let index = start + 1;
  for (; index < lines.length; index++) {
    const line = lines[index] as string;
    if (SIMPLE_BORDER.test(line)) {
      const next = lines[index + 1];
      if (next === undefined || next.trim() === "") return { rows, end: index + 1 };
      continue;
    }
    if (line.trim() === "" || /^[-\s]+$/.test(line)) continue;
    const cells = columns.map(([from, to], column) =>
      line
        .slice(
          from,
          column === columns.length - 1 ? undefined : Math.max(to, (columns[column + 1]?.[0] ?? to) - 1),
        )
        .trim(),
    );
    const previous = rows.at(-1);
    // A row whose first column is empty continues the row above.
    if (cells[0] === "" && previous) {
      previous.cells = previous.cells.map((cell, column) => `${cell} ${cells[column] ?? ""}`.trim());
      previous.last = index;
    } else rows.push({ cells, first: index, last: index });
  }
  return { rows, end: index };
}

/** Rows of a `list-table` body: `* - a` starts a row, `  - b` adds a cell; continuation lines join their cell. */
export function readListTable(body: readonly string[], offset: number): RstRow[] {
  const rows: RstRow[] = [];
  for (const [index, line] of body.entries()) {
    const row = /^\*\s+-\s*(.*)$/.exec(line);
    const cell = /^\s+-\s*(.*)$/.exec(line);
    if (row) rows.push({ cells: [row[1] ?? ""], first: offset + index, last: offset + index });
    else if (cell && rows.length > 0) {
      const current = rows.at(-1) as RstRow;
      current.cells.push(cell[1] ?? "");
      current.last = offset + index;
    } else if (line.trim() !== "" && rows.length > 0) {
      const current = rows.at(-1) as RstRow;
      current.cells[current.cells.length - 1] = `${current.cells.at(-1) ?? ""} ${line.trim()}`.trim();
      current.last = offset + index;
    }
  }
  return rows;
}

/** Rows of a `csv-table` body: comma-separated, `"…"` quoting with doubled quotes, one row per line. */
export function readCsvTable(body: readonly string[], offset: number): RstRow[] {
  const rows: RstRow[] = [];
  for (const [index, line] of body.entries()) {
    if (line.trim() === "") continue;
    const cells = [...line.matchAll(/\s*("(?:[^"]|"")*"|[^,]*)\s*(?:,|$)/g)]
      .map((match) => match[1] ?? "")
      .map((cell) => (cell.startsWith('"') ? cell.slice(1, -1).replace(/""/g, '"') : cell).trim());
    if (cells.at(-1) === "") cells.pop();
    rows.push({ cells, first: offset + index, last: offset + index });
  }
  return rows;
}
