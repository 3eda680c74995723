/**
 * OpenDocument files, as LibreOffice saves them: text (`.odt`), spreadsheets (`.ods`) and presentations (`.odp`).
 * They were skipped as binary. Each is a zip whose `content.xml` holds the document (OASIS ODF 1.2/1.3), checked by
 * the zip guard and walked with htmlparser2 in XML mode, as PPTX and XLSX are (npm's ODF readers give one string of
 * text, or are ports without upkeep).
 *
 * - Text: headings (`text:h` with its outline level), paragraphs (code when their style is LibreOffice's
 *   "Preformatted Text" or pandoc's "Source Code", directly or as a style's parent), list items, table rows (cells
 *   joined by ` | `), footnotes' text where they stand; comments (`office:annotation`) and tracked deletions left out.
 * - Spreadsheets: each sheet as the XLSX reader reads one (its name as a heading, rows naming their cells, with
 *   their row numbers); a cell shows its text as the file holds it (dates and numbers as formatted).
 * - Presentations: each slide as the PPTX reader reads one (its title as a heading, `Slide N` without one; outline
 *   paragraphs as list items, other text as paragraphs; its notes under `Notes`), with its slide number.
 *
 * A document saved with a password (`META-INF/manifest.xml` naming encryption data) is skipped as `encrypted`.
 */

import { type SheetRow, sheetBlocks } from "./named-rows.js";
import { decodeXmlText } from "./office-package.js";
import { walkXml } from "./streaming-parser.js";
import type { DocumentBlock, DocumentReader, ReaderInput, ReadFileResult } from "./types.js";
import { ReaderSkipError } from "./types.js";
import { checkZip } from "./zip-guard.js";

const CONTENT = "content.xml";
const META = "meta.xml";
const MANIFEST = "META-INF/manifest.xml";
const CODE_STYLE = /^(?:Preformatted_20_Text|Source_20_Code|Code|Source_20_Text)$/;
// Repeated rows and cells (`table:number-rows-repeated`) stand for what the grid shows: a sheet's empty tail is
// "1048576 rows" of nothing. Text repeated past this is kept once.
const MAX_REPEAT = 100;

/** Reads OpenDocument text, spreadsheets and presentations (`.odt`, `.ods`, `.odp`). */
export const openDocumentReader: DocumentReader = {
  format: "opendocument",
  extensions: [".odt", ".ods", ".odp"],
  async read({ bytes, path, limits, signal }: ReaderInput): Promise<ReadFileResult> {
    const { text } = await checkZip({
      bytes,
      path,
      limits,
      keep: [CONTENT, META, MANIFEST],
    });
    signal?.throwIfAborted();
    if (/<manifest:encryption-data\b/.test(text(MANIFEST) ?? "")) {
      throw new ReaderSkipError(
        "encrypted",
        `${path}: the document is saved with a password. Save a copy without the password to read it.`,
      );
    }
    const content = text(CONTENT);
    if (content === undefined)
      throw new ReaderSkipError("corrupt", `${path}: not an OpenDocument file (no content.xml).`);
    const kind = /<office:(text|spreadsheet|presentation)\b/.exec(content)?.[1];
    const blocks =
      kind === "spreadsheet"
        ? spreadsheetBlocks(content)
        : kind === "presentation"
          ? presentationBlocks(content)
          : textBlocks(content, codeStyles(content));
    if (blocks.length === 0) throw new ReaderSkipError("empty", `${path}: no text in the document.`);
    const title = /<dc:title>([^<]*)<\/dc:title>/.exec(text(META) ?? "")?.[1]?.trim();
    return title ? { blocks, metadata: { title: decodeXmlText(title) } } : { blocks };
  },
};

/** The paragraph styles that are code: the named ones, and automatic styles (`P1`) whose parent is one. */
function codeStyles(content: string): Set<string> {
  const styles = new Set<string>();
  for (const match of content.matchAll(/<style:style\b([^>]*)>/g)) {
    const attributes = match[1] as string;
    const name = /\bstyle:name="([^"]+)"/.exec(attributes)?.[1];
    const parent = /\bstyle:parent-style-name="([^"]+)"/.exec(attributes)?.[1];
    if (name !== undefined && parent !== undefined && CODE_STYLE.test(parent)) styles.add(name);
  }
  return styles;
}

/** What the text walkers share: a paragraph's text as it is read (spaces, tabs and breaks as the file marks them). */
class Inline {
  parts: string[] = [];
  /** Inside an element whose text is not the document's (a comment, a tracked deletion, a note's number). */
  skipping = 0;

  open(name: string, attributes: Record<string, string>): void {
    if (name === "office:annotation" || name === "text:tracked-changes" || name === "text:note-citation")
      this.skipping++;
    else if (this.skipping > 0) return;
    else if (name === "text:s")
      this.parts.push(" ".repeat(Math.min(Number(attributes["text:c"] ?? 1) || 1, 64)));
    else if (name === "text:tab") this.parts.push("\t");
    else if (name === "text:line-break") this.parts.push("\n");
    else if (name === "text:note-body") this.parts.push(" (");
  }

  close(name: string): void {
    if (name === "office:annotation" || name === "text:tracked-changes" || name === "text:note-citation")
      this.skipping--;
    else if (name === "text:note-body" && this.skipping === 0) this.parts.push(")");
  }

  text(text: string): void {
    if (this.skipping === 0) this.parts.push(text);
  }

  take(): string {
    const text = this.parts
      .join("")
      .replace(/[ \t]+\n|\n[ \t]+/g, "\n")
      .trim();
    this.parts = [];
    return text;
  }
}

/** A text document's blocks. */
function textBlocks(content: string, code: ReadonlySet<string>): DocumentBlock[] {
  const blocks: DocumentBlock[] = [];
  const inline = new Inline();
  // The paragraph being read, and how deep in it the walk is: a footnote's body holds paragraphs, read into it.
  let paragraph: { kind: "heading" | "paragraph" | "code"; depth: number; nested: number } | undefined;
  let listDepth = 0;
  let row: string[] | undefined;
  let cell: string[] | undefined;
  walkXml(content, {
    onopentag(name, attributes) {
      inline.open(name, attributes);
      if (inline.skipping > 0) return;
      if (name === "text:list-item") listDepth++;
      else if (name === "table:table-row") row = [];
      else if (name === "table:table-cell") cell = [];
      else if ((name === "text:p" || name === "text:h") && paragraph !== undefined) paragraph.nested++;
      else if (name === "text:h") {
        const level = Number(attributes["text:outline-level"] ?? 1) || 1;
        paragraph = { kind: "heading", depth: Math.min(6, Math.max(1, level)), nested: 0 };
      } else if (name === "text:p") {
        const style = attributes["text:style-name"] ?? "";
        paragraph = {
          kind: code.has(style) || CODE_STYLE.test(style) ? "code" : "paragraph",
          depth: 0,
          nested: 0,
        };
      }
    },
    ontext(text) {
      inline.text(text);
    },
    onclosetag(name) {
      const skipped = inline.skipping > 0;
      inline.close(name);
      if (skipped) return;
      if ((name === "text:p" || name === "text:h") && paragraph !== undefined && paragraph.nested > 0) {
        paragraph.nested--;
      } else if ((name === "text:p" || name === "text:h") && paragraph !== undefined) {
        const text = inline.take();
        const { kind, depth } = paragraph;
        paragraph = undefined;
        if (text === "") return;
        if (cell) cell.push(text);
        else if (kind === "heading") blocks.push({ kind, text, depth });
        else if (listDepth > 0) blocks.push({ kind: "list_item", text });
        else if (kind === "code" && blocks.at(-1)?.kind === "code") {
          const last = blocks.at(-1) as DocumentBlock;
          last.text = `${last.text}\n${text}`;
        } else blocks.push({ kind, text });
      } else if (name === "text:list-item") listDepth--;
      else if (name === "table:table-cell" && cell) {
        row?.push(cell.join(" ").replace(/\s+/g, " "));
        cell = undefined;
      } else if (name === "table:table-row" && row) {
        if (row.some((text) => text !== "")) blocks.push({ kind: "table_row", text: row.join(" | ").trim() });
        row = undefined;
      }
    },
  });
  return blocks;
}

/** A spreadsheet's blocks: each sheet's name as a heading, then its rows as the XLSX reader gives them. */
function spreadsheetBlocks(content: string): DocumentBlock[] {
  const blocks: DocumentBlock[] = [];
  const inline = new Inline();
  let sheet: { name: string; rows: SheetRow[]; next: number } | undefined;
  let row: { cells: Map<number, string>; repeat: number; column: number } | undefined;
  let cell: { parts: string[]; repeat: number } | undefined;
  // How deep in paragraphs the walk is (a note's paragraphs are read into the one around them).
  let paragraphs = 0;
  walkXml(content, {
    onopentag(name, attributes) {
      inline.open(name, attributes);
      if (inline.skipping > 0) return;
      if (name === "table:table") sheet = { name: attributes["table:name"] ?? "Sheet", rows: [], next: 1 };
      else if (name === "table:table-row" && sheet)
        row = {
          cells: new Map(),
          repeat: Number(attributes["table:number-rows-repeated"] ?? 1) || 1,
          column: 0,
        };
      else if ((name === "table:table-cell" || name === "table:covered-table-cell") && row)
        cell = { parts: [], repeat: Number(attributes["table:number-columns-repeated"] ?? 1) || 1 };
      else if (name === "text:p" && cell) paragraphs++;
    },
    ontext(text) {
      if (paragraphs > 0) inline.text(text);
    },
    onclosetag(name) {
      const skipped = inline.skipping > 0;
      inline.close(name);
      if (skipped) return;
      if (name === "text:p" && cell && paragraphs > 0) {
        paragraphs--;
        if (paragraphs > 0) return;
        const text = inline.take();
        if (text !== "") cell.parts.push(text);
      } else if ((name === "table:table-cell" || name === "table:covered-table-cell") && cell && row) {
        const text = cell.parts.join(" ").replace(/\s+/g, " ").trim();
        const times = text === "" ? 1 : Math.min(cell.repeat, MAX_REPEAT);
        for (let index = 0; index < times; index++) if (text !== "") row.cells.set(row.column + index, text);
        row.column += cell.repeat;
        cell = undefined;
      } else if (name === "table:table-row" && row && sheet) {
        const times = row.cells.size === 0 ? 0 : Math.min(row.repeat, MAX_REPEAT);
        for (let index = 0; index < times; index++)
          sheet.rows.push({ row: sheet.next + index, cells: row.cells });
        sheet.next += row.repeat;
        row = undefined;
      } else if (name === "table:table" && sheet) {
        for (const block of sheetBlocks(sheet.name, sheet.rows)) blocks.push(block);
        sheet = undefined;
      }
    },
  });
  return blocks;
}

/** A presentation's blocks: each slide's title as a heading, its text, its notes. */
function presentationBlocks(content: string): DocumentBlock[] {
  const blocks: DocumentBlock[] = [];
  const inline = new Inline();
  let slide = 0;
  let slideBlocks: DocumentBlock[] = [];
  let notes: string[] = [];
  let title: string | undefined;
  let frameClass: string | undefined;
  let inNotes = false;
  let listDepth = 0;
  // How deep in paragraphs the walk is (a note's paragraphs are read into the one around them).
  let paragraphs = 0;
  walkXml(content, {
    onopentag(name, attributes) {
      inline.open(name, attributes);
      if (inline.skipping > 0) return;
      if (name === "draw:page") {
        slide++;
        slideBlocks = [];
        notes = [];
        title = undefined;
      } else if (name === "presentation:notes") inNotes = true;
      else if (name === "draw:frame") frameClass = attributes["presentation:class"];
      else if (name === "text:list-item") listDepth++;
      else if (name === "text:p" || name === "text:h") paragraphs++;
    },
    ontext(text) {
      if (paragraphs > 0) inline.text(text);
    },
    onclosetag(name) {
      const skipped = inline.skipping > 0;
      inline.close(name);
      if (skipped) return;
      if ((name === "text:p" || name === "text:h") && paragraphs > 0) {
        paragraphs--;
        if (paragraphs > 0) return;
        const text = inline.take();
        if (text === "") return;
        if (inNotes) notes.push(text);
        else if (frameClass === "title") title = title === undefined ? text : `${title} ${text}`;
        else if (frameClass === "page-number" || frameClass === "footer" || frameClass === "date-time")
          return;
        else
          slideBlocks.push({
            kind: listDepth > 0 || frameClass === "outline" ? "list_item" : "paragraph",
            text,
            slide,
          });
      } else if (name === "text:list-item") listDepth--;
      else if (name === "draw:frame") frameClass = undefined;
      else if (name === "presentation:notes") inNotes = false;
      else if (name === "draw:page") {
        if (title === undefined && slideBlocks.length === 0 && notes.length === 0) return;
        blocks.push({ kind: "heading", depth: 1, text: title ?? `Slide ${slide}`, slide });
        for (const block of slideBlocks) blocks.push(block);
        if (notes.length > 0) {
          blocks.push({ kind: "heading", depth: 2, text: "Notes", slide });
          for (const note of notes) blocks.push({ kind: "paragraph", text: note, slide });
        }
      }
    },
  });
  return blocks;
}
