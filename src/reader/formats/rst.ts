/**
 * A small reader of reStructuredText, written here because no well-kept JavaScript parser exists (npm has
 * `restructured`, last published years ago, and `rst-compiler`, an HTML/VitePress renderer pulling in shiki and
 * KaTeX, neither giving line positions). It reads what carries text: section titles by their adornment (depth by
 * order of first appearance, as docutils does), paragraphs, `::` literal blocks and `code-block` directives as
 * code, other directives' bodies as text, bullet/enumerated/field/definition lists as items, grid/simple/list/csv
 * tables as rows, roles and inline markup reduced to their text. Comments and link targets are dropped.
 */
import { decodeText } from "./plain-text.js";
import { rstInline } from "./rst-inline.js";
import {
  isGridBorder,
  isSimpleBorder,
  type RstRow,
  readCsvTable,
  readGridTable,
  readListTable,
  readSimpleTable,
} from "./rst-tables.js";
import type { DocumentBlock, DocumentReader, ReaderInput, ReadFileResult } from "./types.js";
import { ReaderSkipError } from "./types.js";

const ADORNMENT = /^([=\-`:'"~^_*+#<>.])\1{2,}\s*$/;
const CODE_DIRECTIVES = new Set([
  "code-block",
  "code",
  "sourcecode",
  "ipython",
  "jupyter-execute",
  "testcode",
  "doctest",
]);
const DROPPED_DIRECTIVES = new Set(
  "image include literalinclude toctree raw index meta contents sectnum section-numbering target-notes highlight tabularcolumns graphviz inheritance-diagram only-html default-role role title header footer".split(
    " ",
  ),
);
const VERSION_WORDS: Readonly<Record<string, string>> = {
  versionadded: "New in version",
  versionchanged: "Changed in version",
  deprecated: "Deprecated since version",
  versionremoved: "Removed in version",
};
const LIST_MARKER =
  /^(?:([-*+•‣⁃])|(\(?(?:\d+|#|[a-zA-Z]|[ivxlcdmIVXLCDM]+)[.)])|:([^:`\s][^:`]*):)(?:\s+|$)/;

/** Reads reStructuredText (`.rst`, `.rest`). */
export const rstReader: DocumentReader = {
  format: "rst",
  extensions: [".rst", ".rest"],
  read({ bytes, path, limits }: ReaderInput): ReadFileResult {
    const lines = decodeText(bytes, path)
      .split("\n")
      .map((line) => (line.includes("\t") ? expandTabs(line) : line).trimEnd());
    const blocks: DocumentBlock[] = [];
    const size = lines.reduce((sum, line) => sum + line.length + 1, 0);
    const budget = WORK_FACTOR * size + 1024 * 1024;
    parseBody(lines, 0, { styles: [], blocks, depth: 0, maxDepth: limits.maxDepth, work: 0, budget });
    if (blocks.length === 0)
      throw new ReaderSkipError("empty", `${path}: no text outside comments and directives.`);
    const title = blocks.find((block) => block.kind === "heading")?.text;
    return title ? { blocks, metadata: { title } } : { blocks };
  },
};

interface Context {
  /** Adornment styles in order of first appearance (`=` underline, `=` over+under…): index + 1 is the depth. */
  styles: string[];
  blocks: DocumentBlock[];
  /** How many bodies deep the parse is; past `maxDepth` a body is kept as one flat paragraph. */
  depth: number;
  maxDepth: number;
  /** Characters handed to bodies so far; past `budget` deeper bodies are kept flat, so nesting cannot go quadratic. */
  work: number;
  budget: number;
}

// Nested bodies are re-read once per level; this many times the file's size is the most that re-reading may cost.
const WORK_FACTOR = 6;

function expandTabs(line: string): string {
  let out = "";
  for (const char of line) out += char === "\t" ? " ".repeat(8 - (out.length % 8)) : char;
  return out;
}

const indentOf = (line: string) => line.length - line.trimStart().length;
const blank = (line: string | undefined) => line === undefined || line.trim() === "";

/** The end (exclusive) of the lines from `start` that are blank or indented; trailing blank lines left out. */
function indentedEnd(lines: readonly string[], start: number): number {
  let end = start;
  let index = start;
  for (; index < lines.length; index++) {
    const line = lines[index] as string;
    if (blank(line)) continue;
    if (indentOf(line) === 0) break;
    end = index + 1;
  }
  return end;
}

function dedent(lines: readonly string[]): string[] {
  // A loop, not Math.min(...indents): a literal block of 200k+ lines would overflow the call stack.
  let indent = Number.POSITIVE_INFINITY;
  for (const line of lines) if (!blank(line)) indent = Math.min(indent, indentOf(line));
  return lines.map((line) => line.slice(Number.isFinite(indent) ? indent : 0));
}

/**
 * Parses a body of lines (all at the same base indentation) into blocks. `offset` is the 0-based file line of
 * `lines[0]`, so blocks from nested bodies keep file line numbers.
 */
function parseBody(lines: readonly string[], offset: number, context: Context): void {
  const { blocks } = context;
  for (const line of lines) context.work += line.length + 1;
  if (context.depth >= context.maxDepth || context.work > context.budget) {
    const text = lines
      .map((line) => line.trim())
      .filter((line) => line !== "")
      .join("\n");
    if (text !== "")
      blocks.push({
        kind: "paragraph",
        text: rstInline(text),
        lines: { start: offset + 1, end: offset + lines.length },
      });
    return;
  }
  context.depth++;
  try {
    parseLines(lines, offset, context);
  } finally {
    context.depth--;
  }
}

function parseLines(lines: readonly string[], offset: number, context: Context): void {
  const { blocks } = context;
  const push = (block: DocumentBlock, first: number, last: number) => {
    if (block.text.trim() === "") return;
    blocks.push({ ...block, lines: { start: offset + first + 1, end: offset + last + 1 } });
  };
  const pushRows = (rows: RstRow[], base: number) => {
    for (const row of rows) {
      const text = row.cells.map(rstInline).join(" | ").trim();
      if (text.replace(/[|\s]/g, "") !== "")
        push({ kind: "table_row", text }, row.first - base, row.last - base);
    }
  };
  const heading = (text: string, style: string, first: number, last: number) => {
    if (!context.styles.includes(style)) context.styles.push(style);
    push(
      {
        kind: "heading",
        text: rstInline(text.trim()),
        depth: Math.min(6, context.styles.indexOf(style) + 1),
      },
      first,
      last,
    );
  };
  const nested = (start: number, end: number, prefix?: string): void => {
    const body = dedent(lines.slice(start, end));
    const before = blocks.length;
    parseBody(body, offset + start, context);
    if (prefix !== undefined) {
      const first = blocks[before];
      if (first?.kind === "paragraph") first.text = `${prefix} ${first.text}`.trim();
    }
  };

  let index = 0;
  while (index < lines.length) {
    const line = lines[index] as string;
    if (blank(line)) {
      index++;
      continue;
    }
    if (indentOf(line) > 0) {
      // A block quote: read what it holds.
      const end = indentedEnd(lines, index);
      nested(index, end);
      index = end;
      continue;
    }
    const next = lines[index + 1];
    const afterNext = lines[index + 2];
    // Title with overline and underline.
    if (
      ADORNMENT.test(line) &&
      next !== undefined &&
      !blank(next) &&
      afterNext !== undefined &&
      ADORNMENT.test(afterNext) &&
      afterNext[0] === line[0]
    ) {
      heading(next, `over${line[0]}`, index, index + 2);
      index += 3;
      continue;
    }
    // Title with an underline.
    if (
      next !== undefined &&
      ADORNMENT.test(next) &&
      !ADORNMENT.test(line) &&
      next.trim().length >= Math.min(line.trim().length, 3) &&
      !isSimpleBorder(next)
    ) {
      heading(line, next[0] as string, index, index + 1);
      index += 2;
      continue;
    }
    if (ADORNMENT.test(line) && blank(next) && !isSimpleBorder(line)) {
      index++; // a transition
      continue;
    }
    if (isGridBorder(line)) {
      const table = readGridTable(lines, index);
      pushRows(table.rows, 0);
      index = table.end;
      continue;
    }
    if (isSimpleBorder(line)) {
      const table = readSimpleTable(lines, index);
      pushRows(table.rows, 0);
      index = table.end;
      continue;
    }
    if (/^\.\.(\s|$)/.test(line)) {
      index = explicitMarkup(lines, index, push, pushRows, nested);
      continue;
    }
    if (line.startsWith(">>> ")) {
      let end = index;
      while (end < lines.length && !blank(lines[end])) end++;
      push({ kind: "code", text: lines.slice(index, end).join("\n"), language: "python" }, index, end - 1);
      index = end;
      continue;
    }
    if (/^\|(\s|$)/.test(line)) {
      let end = index;
      while (end < lines.length && /^\|(\s|$)|^\s+\S/.test(lines[end] as string)) end++;
      const text = lines
        .slice(index, end)
        .map((part) => rstInline(part.replace(/^\|\s?/, "").trim()))
        .join("\n");
      push({ kind: "paragraph", text }, index, end - 1);
      index = end;
      continue;
    }
    const marker = LIST_MARKER.exec(line);
    if (marker) {
      const end = Math.max(index + 1, indentedEnd(lines, index + 1));
      const field = marker[3];
      const firstLine = line.slice(marker[0].length);
      const rest = dedent(lines.slice(index + 1, end));
      const before = blocks.length;
      parseBody([firstLine, ...rest], offset + index, context);
      const first = blocks[before];
      const label = field === undefined ? "" : `${rstInline(field)}:`;
      if (first?.kind === "paragraph" && first.lines?.start === offset + index + 1) {
        first.kind = "list_item";
        first.text = `${label} ${first.text}`.trim();
      } else if (label) {
        blocks.splice(before, 0, {
          kind: "list_item",
          text: label,
          lines: { start: offset + index + 1, end: offset + index + 1 },
        });
      }
      index = end;
      continue;
    }
    // A paragraph, or a definition list item when the next line is indented.
    if (next !== undefined && !blank(next) && indentOf(next) > 0) {
      const end = indentedEnd(lines, index + 1);
      const before = blocks.length;
      nested(index + 1, end);
      const first = blocks[before];
      const term = rstInline(line.trim());
      if (first?.kind === "paragraph") {
        first.kind = "list_item";
        first.text = `${term}\n${first.text}`;
        first.lines = { start: offset + index + 1, end: first.lines?.end ?? offset + index + 1 };
      } else
        blocks.splice(before, 0, {
          kind: "list_item",
          text: term,
          lines: { start: offset + index + 1, end: offset + index + 1 },
        });
      index = end;
      continue;
    }
    let end = index;
    while (
      end < lines.length &&
      !blank(lines[end]) &&
      indentOf(lines[end] as string) === 0 &&
      !(end > index && ADORNMENT.test(lines[end + 1] ?? ""))
    )
      end++;
    const paragraph = lines.slice(index, end).join("\n");
    const literal = /::\s*$/.test(paragraph);
    const text = literal
      ? paragraph.replace(/(\s?)::\s*$/, (_, space: string) => (space ? "" : ":"))
      : paragraph;
    push({ kind: "paragraph", text: rstInline(text) }, index, end - 1);
    index = end;
    if (literal) {
      let start = index;
      while (start < lines.length && blank(lines[start])) start++;
      if (start < lines.length && indentOf(lines[start] as string) > 0) {
        const codeEnd = indentedEnd(lines, start);
        push({ kind: "code", text: dedent(lines.slice(start, codeEnd)).join("\n") }, start, codeEnd - 1);
        index = codeEnd;
      }
    }
  }
}

type Push = (block: DocumentBlock, first: number, last: number) => void;

/** Reads a `..` construct (directive, footnote, target, substitution, comment); returns the index after it. */
function explicitMarkup(
  lines: readonly string[],
  index: number,
  push: Push,
  pushRows: (rows: RstRow[], base: number) => void,
  nested: (start: number, end: number, prefix?: string) => void,
): number {
  const line = lines[index] as string;
  const end = indentedEnd(lines, index + 1);
  const directive = /^\.\.\s+([\w:.+-]+)::\s*(.*)$/.exec(line);
  const footnote = /^\.\.\s+\[[^\]]+\]\s*(.*)$/.exec(line);
  if (footnote) {
    push({ kind: "paragraph", text: rstInline(footnote[1] ?? "") }, index, index);
    if (end > index + 1) nested(index + 1, end);
    return end;
  }
  if (!directive) return end; // a comment, a link target or a substitution definition
  const name = (directive[1] as string).toLowerCase().replace(/^(rst|py|c|cpp|js|std):/, "");
  const args = (directive[2] as string).trim();
  // Options (`:linenos:`) come first, then a blank line and the body.
  let bodyStart = index + 1;
  const options: Record<string, string> = {};
  while (bodyStart < end && /^\s+:[\w-]+:/.test(lines[bodyStart] as string)) {
    const option = /^\s+:([\w-]+):\s*(.*)$/.exec(lines[bodyStart] as string);
    if (option) options[option[1] as string] = option[2] ?? "";
    bodyStart++;
  }
  if (CODE_DIRECTIVES.has(name)) {
    const body = dedent(lines.slice(bodyStart, end));
    while (body.length > 0 && blank(body[0])) {
      body.shift();
      bodyStart++;
    }
    const language = args || options.language;
    push(
      language ? { kind: "code", text: body.join("\n"), language } : { kind: "code", text: body.join("\n") },
      bodyStart,
      end - 1,
    );
    return end;
  }
  if (DROPPED_DIRECTIVES.has(name)) return end;
  if (name === "list-table" || name === "csv-table") {
    if (args) push({ kind: "paragraph", text: rstInline(args) }, index, index);
    const body = dedent(lines.slice(bodyStart, end));
    pushRows(name === "list-table" ? readListTable(body, bodyStart) : readCsvTable(body, bodyStart), 0);
    return end;
  }
  if (name === "math") {
    const body = dedent(lines.slice(bodyStart, end)).join("\n").trim();
    push({ kind: "code", text: body || args, language: "latex" }, index, end - 1);
    return end;
  }
  const version = VERSION_WORDS[name];
  if (version) {
    push({ kind: "paragraph", text: `${version} ${rstInline(args)}.` }, index, index);
  } else if (args && name !== "figure") {
    push({ kind: "paragraph", text: rstInline(args) }, index, index);
  }
  if (end > bodyStart) nested(bodyStart, end);
  return end;
}
