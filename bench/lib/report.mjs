// Output: each figure returns a section; sections print as aligned Markdown tables (readable in a
// terminal, pasteable into BENCHMARKS.md) followed by the targets with PASS/MISS.

/** A number for a table cell: `digits` decimals, thousands separated; strings pass through. */
export function fmt(value, digits = 0) {
  if (value === null || value === undefined) return "—";
  if (typeof value === "string") return value;
  if (!Number.isFinite(value)) return "—";
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** A ratio cell such as `0.42×`. */
export function fmtRatio(value) {
  if (!Number.isFinite(value)) return "—";
  return `${value < 0.1 ? value.toFixed(3) : value.toFixed(2)}×`;
}

/** A target line: `status` is PASS, MISS or n/a (when a side could not be measured). */
export function target(name, goal, measured, pass) {
  const status = pass === null || pass === undefined ? "n/a" : pass ? "PASS" : "MISS";
  return { name, goal, measured, status };
}

function markdownTable(headers, rows) {
  const cells = [headers, ...rows].map((row) => row.map((cell) => String(cell ?? "")));
  const widths = headers.map((_, column) => Math.max(3, ...cells.map((row) => (row[column] ?? "").length)));
  const line = (row) => `| ${row.map((cell, column) => cell.padEnd(widths[column])).join(" | ")} |`;
  const rule = `|${widths.map((width) => "-".repeat(width + 2)).join("|")}|`;
  return [line(cells[0]), rule, ...cells.slice(1).map(line)].join("\n");
}

/** The whole report as text. */
export function renderReport({ header, sections }) {
  const out = [header, ""];
  for (const section of sections) {
    out.push(`### ${section.title}`, "");
    if (section.error) out.push(`(failed: ${section.error})`, "");
    if (section.headers && section.rows?.length) out.push(markdownTable(section.headers, section.rows), "");
    for (const note of section.notes ?? []) out.push(`- ${note}`);
    if (section.notes?.length) out.push("");
  }
  const targets = sections.flatMap((section) => section.targets ?? []);
  if (targets.length > 0) {
    out.push("### Targets (informational)", "");
    out.push(
      markdownTable(
        ["target", "goal", "measured", "status"],
        targets.map((t) => [t.name, t.goal, t.measured, t.status]),
      ),
      "",
    );
  }
  return out.join("\n");
}
