// tbl tables inside man pages (`.TS` … `.TE`): the format lines are skipped, each data line is a row.

/** One data row of a tbl table, with its 1-based line in the page. */
export interface RoffTableRow {
  cells: string[];
  line: number;
}

/**
 * Reads a tbl table starting at `startIndex` (the line after `.TS`) up to `.TE`. Returns the rows (cells still
 * roff-escaped) and the index of the `.TE` line (or the last line when `.TE` is missing).
 */
export function readRoffTable(
  lines: readonly string[],
  startIndex: number,
): { rows: RoffTableRow[]; endIndex: number } {
  let index = startIndex;
  let tab = "\t";
  const rows: RoffTableRow[] = [];
  const skipFormat = () => {
    while (index < lines.length) {
      const line = (lines[index] as string).trim();
      index++;
      if (line.endsWith(".")) return;
    }
  };
  const options = (lines[index] ?? "").trim();
  if (options.endsWith(";")) {
    tab = /tab\s*\((.)\)/.exec(options)?.[1] ?? tab;
    index++;
  }
  skipFormat();
  while (index < lines.length) {
    const line = lines[index] as string;
    if (/^\.\s*TE\b/.test(line)) return { rows, endIndex: index };
    if (/^\.\s*T&/.test(line)) {
      index++;
      skipFormat();
      continue;
    }
    const start = index + 1;
    index++;
    if (line.startsWith(".") || line.startsWith("'") || /^\s*[_=]\s*$/.test(line)) continue;
    let joined = line;
    // A T{ … T} text block continues a cell over several lines.
    while (/T\{\s*$/.test(joined) || (joined.includes("T{") && !joined.includes("T}"))) {
      if (index >= lines.length) break;
      const next = lines[index++] as string;
      joined += next.startsWith("T}") ? next : ` ${next}`;
    }
    const cells = joined
      .split(tab)
      .map((cell) => cell.replace(/T\{\s*|\s*T\}/g, "").trim())
      .filter((cell) => cell !== "" && cell !== "_" && cell !== "=");
    if (cells.length > 0) rows.push({ cells, line: start });
  }
  return { rows, endIndex: lines.length - 1 };
}
