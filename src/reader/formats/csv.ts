import { decodeText, paragraphBlocks } from "./plain-text.js";
import type { DocumentBlock, DocumentReader, ReaderInput, ReadFileResult } from "./types.js";
import { ReaderSkipError } from "./types.js";

interface ParsedRecord {
  record: string[];
  raw: string;
  info: { lines: number };
}

/**
 * Reads CSV and TSV files with `csv-parse` (RFC 4180: quoted fields, doubled quotes, newlines inside quotes): the
 * first record is the header, and every other record becomes one `table_row` naming its fields
 * (`name: Ada; year: 1815`) with the lines it spans. Empty fields are left out; a header cell that is empty is
 * called `column N`. A file the parser rejects (an unclosed quote) is read as plain text, said in
 * `metadata.csv_fallback`.
 */
export const csvReader: DocumentReader = {
  format: "csv",
  extensions: [".csv", ".tsv"],
  async read({ bytes, path }: ReaderInput): Promise<ReadFileResult> {
    const text = decodeText(bytes, path);
    const { parse } = await import("csv-parse/sync");
    let records: ParsedRecord[];
    try {
      records = parse(text, {
        delimiter: path.toLowerCase().endsWith(".tsv") ? "\t" : ",",
        info: true,
        raw: true,
        relax_column_count: true,
        relax_quotes: true,
        skip_empty_lines: true,
      }) as unknown as ParsedRecord[];
    } catch (error) {
      const blocks = paragraphBlocks(text);
      if (blocks.length === 0) throw new ReaderSkipError("empty", `${path}: no text.`);
      const reason = error instanceof Error ? error.message : String(error);
      return {
        blocks,
        metadata: { csv_fallback: `not valid CSV (${reason.slice(0, 200)}); read as plain text` },
      };
    }
    const [header, ...rows] = records;
    if (header === undefined) throw new ReaderSkipError("empty", `${path}: no records.`);
    const names = header.record.map((name, index) => name.trim() || `column ${index + 1}`);
    const blocks: DocumentBlock[] = [];
    for (const { record, raw, info } of rows) {
      const fields: string[] = [];
      for (const [index, value] of record.entries()) {
        if (value.trim() !== "") fields.push(`${names[index] ?? `column ${index + 1}`}: ${value.trim()}`);
      }
      if (fields.length === 0) continue;
      blocks.push({
        kind: "table_row",
        text: fields.join("; "),
        lines: { start: startLine(raw, info.lines), end: info.lines },
      });
    }
    if (blocks.length === 0) {
      blocks.push({
        kind: "table_row",
        text: names.join(" | "),
        lines: { start: 1, end: header.info.lines },
      });
    }
    return { blocks, metadata: { columns: names.join(", "), row_count: rows.length } };
  },
};

/** The first line of a record: its last line minus the newlines inside it (skipped blank lines before it aside). */
function startLine(raw: string, endLine: number): number {
  const body = raw.replace(/^\n+/, "").replace(/\n$/, "");
  let newlines = 0;
  for (let index = body.indexOf("\n"); index !== -1; index = body.indexOf("\n", index + 1)) newlines++;
  return endLine - newlines;
}
