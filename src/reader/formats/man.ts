/**
 * A small reader of man pages: the common macros of roff `-man` and `-mdoc`, not a roff implementation. No
 * well-kept JavaScript library reads roff (checked npm: only writers such as `marked-man` and unmaintained
 * fragments), and shelling out to `mandoc`/`groff` would make reading depend on the machine, so the macros that
 * carry a page's text are read here: `.TH`/`.Dt` title, `.SH`/`.Sh` sections, `.SS`/`.Ss` subsections,
 * `.TP`/`.IP`/`.It` items, font macros and escapes removed, `.nf`/`.EX`/`.Bd -literal` as code, `.TS` tables as
 * rows. Other requests (`.de`, `.if`, `.ds`, spacing) are dropped: they format, they do not say.
 */
import { isMdocCallable, renderMdoc } from "./mdoc-line.js";
import { decodeText } from "./plain-text.js";
import { unescapeRoff } from "./roff-escapes.js";
import { readRoffTable } from "./roff-table.js";
import type { DocumentBlock, DocumentReader, ReaderInput, ReadFileResult } from "./types.js";
import { ReaderSkipError } from "./types.js";

interface Pending {
  kind: DocumentBlock["kind"];
  parts: string[];
  start: number;
  end: number;
  /** list_item: the item's tag (`-a, --all`), shown on its own line before the body. */
  tag?: string;
}

const FONT_SPACED = new Set(["B", "I", "SM", "SB"]);
const FONT_ALTERNATING = new Set(["BR", "BI", "IB", "IR", "RB", "RI"]);
const PARAGRAPH = new Set(["PP", "P", "LP", "Pp", "Lp", "HP", "sp", "Sp", "Bl", "El", "YS", "bp"]);
const NO_FILL_START = new Set(["nf", "EX", "Vb"]);
const NO_FILL_END = new Set(["fi", "EE", "Ve"]);
const SKIP_BLOCK = new Set(["de", "de1", "am", "ig"]);

/** Reads man pages (`ls.1`, `printf.3`, `foo.man`; `ls.1.gz` through the gzip reader). */
export const manReader: DocumentReader = {
  format: "man",
  extensions: [
    ".1",
    ".2",
    ".3",
    ".4",
    ".5",
    ".6",
    ".7",
    ".8",
    ".9",
    ".man",
    ".3pm",
    ".1ssl",
    ".3ssl",
    ".5ssl",
    ".7ssl",
  ],
  read({ bytes, path }: ReaderInput): ReadFileResult {
    const result = readRoff(decodeText(bytes, path));
    if (result.blocks.length === 0) throw new ReaderSkipError("empty", `${path}: no text in the man page.`);
    return result;
  },
};

/** Splits a macro line's arguments: blanks separate, `"…"` groups (`""` is a quote), `\ ` does not separate. */
export function roffArguments(text: string): string[] {
  const args: string[] = [];
  let current = "";
  let quoted = false;
  let started = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index] as string;
    if (char === "\\" && index + 1 < text.length) {
      current += char + text[index + 1];
      started = true;
      index++;
    } else if (char === '"') {
      if (quoted && text[index + 1] === '"') {
        current += '"';
        index++;
      } else {
        quoted = !quoted;
        started = true;
      }
    } else if ((char === " " || char === "\t") && !quoted) {
      if (started) args.push(current);
      current = "";
      started = false;
    } else {
      current += char;
      started = true;
    }
  }
  if (started) args.push(current);
  return args;
}

function readRoff(text: string): ReadFileResult {
  const lines = text.split("\n");
  const blocks: DocumentBlock[] = [];
  const metadata: Record<string, string> = {};
  let current: Pending | undefined;
  let noFill = false;
  let awaiting: "heading2" | "heading3" | "tag" | undefined;
  let name = "";

  const flush = () => {
    if (current === undefined) return;
    const body =
      current.kind === "code" ? current.parts.join("\n").replace(/\n+$/, "") : current.parts.join(" ").trim();
    const textOf = current.tag ? (body ? `${current.tag}\n${body}` : current.tag) : body;
    if (textOf.trim() !== "") {
      blocks.push({ kind: current.kind, text: textOf, lines: { start: current.start, end: current.end } });
    }
    current = undefined;
  };
  const heading = (textOf: string, depth: number, line: number) => {
    flush();
    if (textOf.trim() !== "")
      blocks.push({ kind: "heading", text: textOf.trim(), depth, lines: { start: line, end: line } });
  };
  const addText = (textOf: string, line: number, raw = false) => {
    if (awaiting === "heading2" || awaiting === "heading3") {
      heading(textOf, awaiting === "heading2" ? 2 : 3, line);
      awaiting = undefined;
      return;
    }
    if (awaiting === "tag") {
      awaiting = undefined;
      if (current?.kind === "list_item" && current.parts.length === 0) {
        current.tag = current.tag ? `${current.tag}, ${textOf.trim()}` : textOf.trim();
        current.end = line;
        return;
      }
      flush();
      current = { kind: "list_item", parts: [], start: line, end: line, tag: textOf.trim() };
      return;
    }
    const kind = noFill ? "code" : (current?.kind ?? "paragraph");
    if (current === undefined || (noFill && current.kind !== "code")) {
      flush();
      current = { kind, parts: [], start: line, end: line };
    }
    if (!raw && !noFill && textOf.trim() === "") return;
    current.parts.push(noFill ? textOf : textOf.trim());
    current.end = line;
  };

  for (let index = 0; index < lines.length; index++) {
    const lineNumber = index + 1;
    let line = lines[index] as string;
    // A trailing backslash continues the line.
    while (/(^|[^\\])(\\\\)*\\$/.test(line) && index + 1 < lines.length)
      line = line.slice(0, -1) + lines[++index];
    const macro = /^[.'][ \t]*([^ \t]*)[ \t]*(.*)$/.exec(line);
    if (macro === null) {
      if (line.trim() === "" && !noFill) {
        flush();
        continue;
      }
      addText(unescapeRoff(line), lineNumber, noFill);
      continue;
    }
    const [, request = "", rest = ""] = macro;
    if (request === "" || request.startsWith('\\"') || request.startsWith("\\#")) continue;
    if (SKIP_BLOCK.has(request)) {
      const end = request === "ig" && rest.trim() ? `.${rest.trim()}` : "..";
      while (index + 1 < lines.length && (lines[index + 1] as string).trim() !== end) index++;
      index++;
      continue;
    }
    if (request === "if" || request === "ie" || request === "el") {
      // Conditionals choose between typesetters; their branches hold formatting, so a braced block is skipped whole.
      let depth = (line.match(/\\\{/g) ?? []).length - (line.match(/\\\}/g) ?? []).length;
      while (depth > 0 && index + 1 < lines.length) {
        const next = lines[++index] as string;
        depth += (next.match(/\\\{/g) ?? []).length - (next.match(/\\\}/g) ?? []).length;
      }
      continue;
    }
    if (request === "TS") {
      flush();
      const table = readRoffTable(lines, index + 1);
      for (const row of table.rows)
        blocks.push({
          kind: "table_row",
          text: row.cells.map(unescapeRoff).join(" | "),
          lines: { start: row.line, end: row.line },
        });
      index = table.endIndex;
      continue;
    }
    const args = roffArguments(rest).map(unescapeRoff);
    if (isMdocCallable(request) && request !== "Nm") {
      addText(renderMdoc([request, ...args], name), lineNumber);
      continue;
    }
    switch (request) {
      case "TH":
      case "Dt": {
        const title = args[1] ? `${args[0] ?? ""}(${args[1]})` : (args[0] ?? "");
        metadata.title = title;
        if (args[1]) metadata.section = args[1];
        heading(title, 1, lineNumber);
        break;
      }
      case "SH":
      case "Sh":
        noFill = false;
        if (args.length > 0) heading(args.join(" "), 2, lineNumber);
        else {
          flush();
          awaiting = "heading2";
        }
        break;
      case "SS":
      case "Ss":
        noFill = false;
        if (args.length > 0) heading(args.join(" "), 3, lineNumber);
        else {
          flush();
          awaiting = "heading3";
        }
        break;
      case "TP":
        flush();
        awaiting = "tag";
        break;
      case "TQ":
        awaiting = "tag";
        break;
      case "IP": {
        flush();
        const tag = (args[0] ?? "").trim();
        current = /^(?:[•*·o-]|\\\(bu)?$/.test(tag)
          ? { kind: "list_item", parts: [], start: lineNumber, end: lineNumber }
          : { kind: "list_item", parts: [], start: lineNumber, end: lineNumber, tag };
        break;
      }
      case "It": {
        flush();
        const tag = renderMdoc(args, name);
        current = tag
          ? { kind: "list_item", parts: [], start: lineNumber, end: lineNumber, tag }
          : { kind: "list_item", parts: [], start: lineNumber, end: lineNumber };
        break;
      }
      case "Nm": {
        if (name === "" && args[0]) name = args[0];
        addText(renderMdoc(["Nm", ...args], name), lineNumber);
        break;
      }
      case "Nd":
        addText(`— ${renderMdoc(["No", ...args], name)}`, lineNumber);
        break;
      case "Bd":
        flush();
        if (args.includes("-literal") || args.includes("-unfilled")) noFill = true;
        break;
      case "Ed":
        flush();
        noFill = false;
        break;
      case "Dl":
      case "D1":
        flush();
        current = {
          kind: request === "Dl" ? "code" : "paragraph",
          parts: [renderMdoc(["No", ...args], name)],
          start: lineNumber,
          end: lineNumber,
        };
        flush();
        break;
      case "SY":
        flush();
        addText(args.join(" "), lineNumber);
        break;
      case "OP":
        addText(`[${args.join(" ")}]`, lineNumber);
        break;
      case "so":
        addText(`See ${args[0] ?? ""}.`, lineNumber);
        break;
      case "br":
        break;
      default:
        if (FONT_SPACED.has(request)) {
          if (args.length > 0) addText(args.join(" "), lineNumber);
        } else if (FONT_ALTERNATING.has(request)) {
          addText(args.join(""), lineNumber);
        } else if (NO_FILL_START.has(request)) {
          flush();
          noFill = true;
        } else if (NO_FILL_END.has(request)) {
          flush();
          noFill = false;
        } else if (PARAGRAPH.has(request)) {
          if (noFill) addText("", lineNumber, true);
          else if (current?.kind !== "list_item" || request !== "sp") flush();
        }
      // Any other request formats and says nothing (`.ft`, `.in`, `.ds`, `.nr`, `.IX`…).
    }
  }
  flush();
  return Object.keys(metadata).length > 0 ? { blocks, metadata } : { blocks };
}
