/**
 * Rows as aligned columns, two spaces apart (the last column not padded, trailing spaces trimmed); `header` marks
 * the first row (bold in a terminal).
 */
export function textTable(
  rows: readonly string[][],
  header: (line: string) => string = (line) => line,
): string[] {
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length))) ?? [];
  return rows.map((row, index) => {
    const line = row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join("  ")
      .trimEnd();
    return index === 0 ? header(line) : line;
  });
}
