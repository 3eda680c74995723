import { InvalidArgumentError } from "../../errors/invalid-argument-error.js";
import { codeReader } from "./code.js";
import { csvReader } from "./csv.js";
import { docxReader } from "./docx.js";
import { emailReader } from "./email.js";
import { epubReader } from "./epub.js";
import { createGzipReader } from "./gzip.js";
import { htmlReader } from "./html.js";
import { INFO_PART, infoReader } from "./info.js";
import { manReader } from "./man.js";
import { markdownReader } from "./markdown.js";
import { mdxReader } from "./mdx.js";
import { notebookReader } from "./notebook.js";
import { openDocumentReader } from "./opendocument.js";
import { pdfReader } from "./pdf.js";
import { plainTextReader } from "./plain-text.js";
import { pptxReader } from "./pptx.js";
import { rstReader } from "./rst.js";
import type { DocumentReader } from "./types.js";
import { xlsxReader } from "./xlsx.js";

/**
 * The readers ragsynth ships, one line each: a reader claims the endings it lists (`extensions`). When two claim
 * the same ending, the later line wins. Adding a reader to this list (or changing what one emits) changes which
 * text the index holds: bump {@link READERS_VERSION} with it, so cached indexes read those files again.
 */
export const BUILT_IN_READERS: readonly DocumentReader[] = [
  codeReader,
  plainTextReader,
  markdownReader,
  rstReader,
  mdxReader,
  htmlReader,
  pdfReader,
  docxReader,
  notebookReader,
  csvReader,
  manReader,
  infoReader,
  pptxReader,
  epubReader,
  emailReader,
  xlsxReader,
  openDocumentReader,
];

/**
 * The version of the built-in readers' output, kept in the index with every file (`reader` in its metadata): a
 * file indexed by another version (or another reader) is read again even if its size and time are unchanged.
 * 5: metadata strings cut to 200 characters, and the splitter counting the metadata separator.
 * 6: HTML page furniture in named `<div>`s dropped (DocBook's navheader/navfooter, AsciiDoc's #footer).
 * 7: two `<code>` listings in one HTML `<pre>` read as two code blocks, not run on into one.
 * 8: a PostScript file (`%!PS` first line) with no reader of its own (`.ps`, `.ps.gz`) skipped, not read as text.
 * 9: bytes outside UTF-8 read as Windows-1252 (up to three in a row), not the file skipped as `invalid_utf8`.
 * 10: Sphinx's permalink anchors (`<a class="headerlink">¶</a>`) dropped after definition terms too, not only headings.
 * 11: a heading's permalink of any class dropped (Node's API docs' `<a class="mark" href="#x">#</a>`).
 * 12: SQLite's site header, menus and table of contents (`tagline`, `mainmenu`, `fancy_toc`…) dropped as furniture.
 * 13: a Devhelp book index (`<book …><chapters>`, `python3.11.devhelp.gz`) skipped as unsupported, not read as text.
 * 14: GNU Info manuals (`.info`, split parts `.info-1`…) read by node, not skipped as binary or read as text.
 * 15: PowerPoint decks (`.pptx`, `.pptm`) read slide by slide, not skipped as binary.
 * 16: EPUB books read in their spine's order, not skipped as binary.
 * 17: email (`.eml`, `.mbox`) read message by message, not as raw MIME.
 * 18: Excel workbooks (`.xlsx`, `.xlsm`) read sheet by sheet, row by row, not skipped as binary.
 * 19: OpenDocument text, spreadsheets and presentations (`.odt`, `.ods`, `.odp`) read, not skipped as binary.
 * 20: Excel percentages shown as Excel shows them (`26%`, not `0.256`); a binary file's skip reason names what it is
 *   (`a zip archive; extract it …`), so files skipped before are looked at again.
 * 21: Publican's page furniture dropped (`ul.docnav` Prev/Home/Next lists, `#banner`, the `p#title` logo links: the
 *   Debian Administrator's Handbook), so a page's first chunk starts at its title; tables of contents dropped
 *   (`.toc`, `#toc`, `#gtoc`, `.table-of-contents`: DocBook's, Node's, AsciiDoc's, Docusaurus'), and Node's `[src]`
 *   links beside a title (`a.srclink`).
 */
export const READERS_VERSION = 21;

/** Reads any file whose ending has no reader, when it is text (no NUL bytes; UTF-8, or UTF-16 with a BOM). */
export const FALLBACK_READER: DocumentReader = plainTextReader;

/**
 * Readers to add or replace by file ending, as LlamaIndex's `file_extractor`: `{ ".log": myLogReader }`. Keys are
 * endings with or without their dot, case-insensitive; compound endings (`.md.gz`) are allowed.
 */
export type ReaderOverrides = Readonly<Record<string, DocumentReader>>;

/** A reader picked for a file, with the id the index keeps to notice when a file would be read differently. */
export interface ChosenReader {
  reader: DocumentReader;
  /** `<format>@<READERS_VERSION>` for a built-in reader, `<format>@custom` for one passed in `readers`. */
  id: string;
}

/** Endings mapped to readers: the built-in ones with the overrides on top. */
export interface ReaderRegistry {
  /** The reader registered for `fileName`'s ending (the longest that matches: `.md.gz` before `.gz`), if any. */
  readerFor(fileName: string): ChosenReader | undefined;
  /** The reader of text files with no reader of their own. */
  readonly fallback: ChosenReader;
  /** Every ending and the format its reader names, sorted by ending. */
  readonly endings: readonly { ending: string; format: string }[];
}

/**
 * The registry of readers by file ending: {@link BUILT_IN_READERS}, with `readers` added or replacing them.
 * @throws InvalidArgumentError when an ending or a reader in `readers` is malformed
 * @example
 * const registry = createReaderRegistry({ readers: { ".log": { format: "log", extensions: [".log"], read } } });
 */
export function createReaderRegistry({
  readers,
}: {
  readers?: ReaderOverrides | undefined;
} = {}): ReaderRegistry {
  const table = new Map<string, ChosenReader>();
  for (const reader of BUILT_IN_READERS) {
    for (const ending of reader.extensions) {
      table.set(normalizeEnding(ending), { reader, id: `${reader.format}@${READERS_VERSION}` });
    }
  }
  // A `.gz` file is read by the reader of its inner name (`README.gz` as text, `ls.1.gz` as a man page), through
  // this registry, overrides included.
  const gzip = createGzipReader((innerPath) => readerFor(innerPath)?.reader ?? FALLBACK_READER);
  table.set(".gz", { reader: gzip, id: `${gzip.format}@${READERS_VERSION}` });
  for (const [ending, reader] of Object.entries(checkOverrides(readers))) {
    table.set(normalizeEnding(ending), { reader, id: `${reader.format}@custom` });
  }
  /**
   * The reader of the longest ending the name has after at least one character: every ending starts with a dot, so
   * the name's suffixes from each of its dots (but a first one) are looked up, longest first.
   */
  function readerFor(fileName: string): ChosenReader | undefined {
    const name = fileName.toLowerCase();
    // A split Info manual's parts are numbered (`find.info-1`): each is read as its `.info` ending is.
    const ending = (suffix: string) =>
      table.get(INFO_PART.test(suffix) ? suffix.replace(/-\d+$/, "") : suffix);
    for (let dot = name.indexOf(".", 1); dot !== -1; dot = name.indexOf(".", dot + 1)) {
      const chosen = ending(name.slice(dot));
      if (chosen) return chosen;
    }
    return undefined;
  }
  return {
    readerFor,
    fallback: { reader: FALLBACK_READER, id: `${FALLBACK_READER.format}@${READERS_VERSION}` },
    endings: [...table]
      .map(([ending, chosen]) => ({ ending, format: chosen.reader.format }))
      .sort((left, right) => (left.ending < right.ending ? -1 : 1)),
  };
}

/** The built-in reader named `format` (`markdown`, `text`…), to map another ending onto it; undefined when none is. */
export function builtInReader(format: string): DocumentReader | undefined {
  return [...BUILT_IN_READERS].reverse().find((reader) => reader.format === format);
}

/**
 * `readAs` (`{ ".mdx": "markdown" }`: endings by the format whose built-in reader reads them) as the `readers` of
 * {@link createReaderRegistry}; a format with no built-in reader is left out. Plain data in, so another thread
 * (an index build's worker) makes the same registry from it.
 */
export function builtInReadersFor(readAs: Readonly<Record<string, string>>): Record<string, DocumentReader> {
  const readers: Record<string, DocumentReader> = {};
  for (const [ending, format] of Object.entries(readAs)) {
    const reader = builtInReader(format);
    if (reader) readers[ending] = reader;
  }
  return readers;
}

/** The formats of the built-in readers, sorted: what {@link builtInReader} knows. */
export function builtInFormats(): string[] {
  return [...new Set([...BUILT_IN_READERS.map((reader) => reader.format), FALLBACK_READER.format])].sort();
}

/** `MD` → `.md`; `.Tar.GZ` → `.tar.gz`. */
export function normalizeEnding(ending: string): string {
  const lower = ending.toLowerCase();
  return lower.startsWith(".") ? lower : `.${lower}`;
}

function checkOverrides(readers: unknown): ReaderOverrides {
  if (readers === undefined) return {};
  if (typeof readers !== "object" || readers === null || Array.isArray(readers)) {
    throw new InvalidArgumentError({
      parameter: "readers",
      value: readers,
      expected: 'be an object of readers by file ending, such as { ".log": logReader }',
    });
  }
  for (const [ending, reader] of Object.entries(readers)) {
    if (!/^\.?[\w.+-]+$/.test(ending) || ending === ".") {
      throw new InvalidArgumentError({
        parameter: `readers["${ending}"]`,
        value: ending,
        expected: "be keyed by a file ending such as .log or .md.gz",
      });
    }
    const candidate = reader as Partial<DocumentReader> | null;
    if (
      typeof candidate !== "object" ||
      candidate === null ||
      typeof candidate.read !== "function" ||
      typeof candidate.format !== "string" ||
      candidate.format === ""
    ) {
      throw new InvalidArgumentError({
        parameter: `readers["${ending}"]`,
        value: reader,
        expected:
          "be a DocumentReader: an object with a `format` name and a `read({ bytes, path, limits })` function",
      });
    }
  }
  return readers as ReaderOverrides;
}
