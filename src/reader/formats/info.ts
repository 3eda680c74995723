/**
 * GNU Info manuals as `makeinfo` writes them (`grep.info`, the parts of a split manual `find.info-1`, `find.info-2`;
 * `grep.info.gz` through the gzip reader), read by the Texinfo manual's "Info Format Specification". No well-kept
 * JavaScript library reads Info (npm has none), and the format is small: sections begin after a separator line
 * (`^_`, optionally with form feeds); a node's first line names it (`File: grep.info,  Node: Usage,  Next: …`);
 * titles are underlined (`*` chapter, `=` section, `-` subsection, `.` subsubsection). Read as text, a manual was
 * skipped as binary (the NUL bytes of its index and image markers, `^@^H[index^@^H]`: 21 of Debian's 33
 * `/usr/share/info` manuals, coreutils, grep and sed among them) or quoted with its node lines, menus and tag table.
 *
 * Kept: each node's text, paragraph by paragraph with its lines, its titles as headings (a node with none is headed
 * by its name), cross-references as words (`*note Usage::` → `see Usage`), an image's alt text. Left out, as an Info
 * reader shows them only to move about: the preamble (its copyright and directory entry are the Top node's again),
 * node lines, menus (an index is one), the indirect and tag tables and local variables.
 */
import { decodeText, paragraphBlocks } from "./plain-text.js";
import type { DocumentBlock, DocumentReader, ReaderInput, ReadFileResult } from "./types.js";
import { ReaderSkipError } from "./types.js";

/** Reads GNU Info manuals (`.info`; split parts `.info-1`… are read by it too: `INFO_PART`). */
export const infoReader: DocumentReader = {
  format: "info",
  extensions: [".info"],
  read({ bytes, path }: ReaderInput): ReadFileResult {
    const text = decodeInfo(bytes, path);
    if (!SEPARATOR_LINE.test(text)) {
      // Not a manual (another program's `.info`: a Drupal module's settings, a log): read as plain text.
      const blocks = paragraphBlocks(text);
      if (blocks.length === 0)
        throw new ReaderSkipError("empty", `${path}: no text (empty or only whitespace).`);
      return { blocks };
    }
    const result = readInfo(text);
    if (result.blocks.length === 0) {
      throw new ReaderSkipError(
        "empty",
        INDIRECT.test(text)
          ? `${path}: the first file of a split Info manual, which only lists its parts (${partName(path, 1)}, ${partName(path, 2)}…): their nodes are read from them.`
          : `${path}: no node with text in the Info manual.`,
      );
    }
    return result;
  },
};

/** `/usr/share/info/find.info`'s part `n`: `find.info-n`. */
function partName(path: string, n: number): string {
  return `${path.slice(path.lastIndexOf("/") + 1)}-${n}`;
}

/** The name of a split Info manual's part (`find.info-2`), read by {@link infoReader}. */
export const INFO_PART = /\.info-\d+$/i;

// A line that begins a section: `^_`, with a form feed before or after it.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the Info format's separator is a control character
const SEPARATOR_LINE = /^\f?\x1f\f?$/m;
const NODE_LINE = /^File:.*\bNode:[ \t]*/i;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the separator again
const INDIRECT = /^\f?\x1f\f?\nIndirect:/im;
const MENU_LINE = /^\* Menu:/i;
// A title's underline, by the sectioning it stands for.
const UNDERLINE_DEPTH: Readonly<Record<string, number>> = { "*": 1, "=": 2, "-": 3, ".": 4 };
const UNDERLINE = /^([*=.-])\1+$/;
// makeinfo's markers (`^@^H[index^@^H]`, `^@^H[image src="…" alt="…"^@^H]`) with their NUL and backspace bytes made
// `ESC ESC` before decoding (`decodeInfo`), so the text is decoded as any other.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the markers' bytes, made ESC ESC
const MARKER = /\x1b\x1b\[(\/?index|image)([^\x1b]*)\x1b\x1b\]/g;
const ALT = /\balt="((?:[^"\\]|\\.)*)"/;
// `*note Usage::`, `*Note Invoking grep::` (the label is the node): the words an Info reader shows as "see".
const NOTE = /\*([Nn])ote([ \t\n]+)([^:*]*?)::/g;
const NOTE_WORD = /\*([Nn])ote([ \t\n])/g;
const DEL = /\x7f/g;

/**
 * The manual's bytes as text. The NUL-backspace pairs of its markers become `ESC ESC` (any other NUL is a binary's,
 * refused as `decodeText` refuses it); a manual whose local variables name another coding than UTF-8 (`coding:
 * iso-8859-15`) is decoded by it when its bytes are not all ASCII.
 */
function decodeInfo(bytes: Uint8Array, path: string): string {
  let marked = bytes;
  for (let nul = bytes.indexOf(0); nul !== -1; nul = bytes.indexOf(0, nul + 1)) {
    if (bytes[nul + 1] !== 0x08) continue;
    if (marked === bytes) marked = Uint8Array.from(bytes);
    marked[nul] = 0x1b;
    marked[nul + 1] = 0x1b;
  }
  const coding = declaredCoding(marked);
  if (coding !== undefined && !marked.includes(0) && marked.some((byte) => byte >= 0x80)) {
    try {
      const text = new TextDecoder(coding, { fatal: true }).decode(marked);
      return text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text;
    } catch {
      // A coding TextDecoder does not know, or bytes that are not in it: read as any text file is.
    }
  }
  return decodeText(marked, path);
}

/** The `coding:` of the manual's local variables (its last section), when it is not UTF-8 or ASCII. */
function declaredCoding(bytes: Uint8Array): string | undefined {
  const tail = new TextDecoder("latin1").decode(bytes.subarray(Math.max(0, bytes.length - 512)));
  const coding = /\nLocal Variables:\n(?:.*\n)*?coding: *([\w.:-]+)/i.exec(tail)?.[1]?.toLowerCase();
  return coding === undefined || coding === "utf-8" || coding === "utf8" || coding === "us-ascii"
    ? undefined
    : coding;
}

function readInfo(text: string): ReadFileResult {
  const lines = text.split("\n");
  const blocks: DocumentBlock[] = [];
  let title: string | undefined;
  let depth = 1;
  let sectionStart = -1;
  const readSection = (start: number, end: number) => {
    if (start < 0 || start >= end || !NODE_LINE.test(lines[start] as string)) return;
    const node = readNode(lines, start, end, depth);
    if (node.blocks.length === 0) return;
    if (node.name.toLowerCase() === "top") title ??= node.title;
    depth = node.depth;
    for (const block of node.blocks) blocks.push(block);
  };
  for (let index = 0; index < lines.length; index++) {
    if (!isSeparator(lines[index] as string)) continue;
    readSection(sectionStart, index);
    sectionStart = index + 1;
  }
  readSection(sectionStart, lines.length);
  // The headings of nodes with nothing after them but menus (a manual's indexes, at its end) head nothing.
  while (blocks.at(-1)?.kind === "heading") blocks.pop();
  return title === undefined ? { blocks } : { blocks, metadata: { title } };
}

function isSeparator(line: string): boolean {
  return line.length <= 3 && line.includes("\x1f") && SEPARATOR_LINE.test(line);
}

/**
 * One node (`lines[start]` is its node line, `end` the next separator): its headings and paragraphs, lines
 * numbered from 1 for the file. A node whose text comes before any title is headed by its name, at the depth of the
 * heading before it (`depth`), so its text is not taken for the node before's.
 */
function readNode(
  lines: readonly string[],
  start: number,
  end: number,
  depth: number,
): { name: string; title: string | undefined; depth: number; blocks: DocumentBlock[] } {
  const name = nodeName(lines[start] as string);
  const blocks: DocumentBlock[] = [];
  let title: string | undefined;
  let titleDepth: number | undefined;
  let lastDepth = depth;
  let run: string[] = [];
  let runStart = -1;
  const flushRun = () => {
    if (runStart === -1) return;
    const paragraphs = paragraphBlocks(cleanText(run.join("\n")), runStart + 1);
    if (paragraphs.length > 0 && blocks.length === 0) {
      blocks.push({
        kind: "heading",
        text: name,
        depth: lastDepth,
        lines: { start: start + 1, end: start + 1 },
      });
    }
    for (const paragraph of paragraphs) blocks.push(paragraph);
    run = [];
    runStart = -1;
  };
  for (let index = start + 1; index < end; index++) {
    const line = lines[index] as string;
    if (MENU_LINE.test(line)) {
      flushRun();
      index = menuEnd(lines, index + 1, end) - 1;
      continue;
    }
    const next = lines[index + 1];
    const underline = index + 1 < end && next !== undefined ? UNDERLINE.exec(next) : null;
    if (underline && isTitle(line, next as string)) {
      flushRun();
      // A node's title is sectioning (`@chapter` `*`, `@section` `=`…); a heading under it in the node is one of
      // `@heading`'s kind (`Examples` underlined `*` inside gnupg's `9.1 watchgnupg`), a part of the node.
      const underlined = UNDERLINE_DEPTH[underline[1] as string] as number;
      const headingDepth =
        titleDepth === undefined ? underlined : Math.min(6, Math.max(underlined, titleDepth + 1));
      const heading = cleanText(line).trim();
      title ??= heading;
      titleDepth ??= headingDepth;
      lastDepth = headingDepth;
      blocks.push({
        kind: "heading",
        text: heading,
        depth: headingDepth,
        lines: { start: index + 1, end: index + 2 },
      });
      index++;
      continue;
    }
    if (runStart === -1) runStart = index;
    run.push(line);
  }
  flushRun();
  return { name, title, depth: titleDepth ?? lastDepth, blocks };
}

/**
 * Where the menu whose first line after `* Menu:` is `lines[from]` ends: at the first paragraph (lines between blank
 * ones) that is text, or the node's end. A paragraph with an entry (`* Usage::  Examples.`, its description's
 * indented lines, an index entry's `(line 22)`) is the menu's, and so is a single line before such a paragraph or
 * starting `--` (a menu comment: `Common Options`, ` -- The Detailed Node Listing --`). Text can follow a menu in
 * its node (bc's `Statements`, the footnotes of coreutils's `ls invocation`): it is read.
 */
function menuEnd(lines: readonly string[], from: number, end: number): number {
  const paragraph = (start: number): { start: number; end: number } => {
    let first = start;
    while (first < end && (lines[first] as string).trim() === "") first++;
    let last = first;
    while (last < end && (lines[last] as string).trim() !== "") last++;
    return { start: first, end: last };
  };
  const hasEntry = ({ start, end: stop }: { start: number; end: number }) =>
    lines.slice(start, stop).some((line) => line.startsWith("* "));
  let at = from;
  for (let current = paragraph(at); current.start < end; current = paragraph(at)) {
    const isMenu =
      hasEntry(current) ||
      (current.end - current.start === 1 &&
        (/^\s*--/.test(lines[current.start] as string) || hasEntry(paragraph(current.end))));
    if (!isMenu) return current.start;
    at = current.end;
  }
  return end;
}

/** `File: grep.info,  Node: Usage,  Next: …` → `Usage` (a name with commas or colons is quoted in DEL bytes). */
function nodeName(line: string): string {
  const rest = line.slice((NODE_LINE.exec(line)?.[0] ?? line).length);
  if (rest.startsWith("\x7f")) {
    const close = rest.indexOf("\x7f", 1);
    return rest.slice(1, close === -1 ? undefined : close).trim();
  }
  const comma = rest.indexOf(",");
  return (comma === -1 ? rest : rest.slice(0, comma)).trim();
}

/** A title above its underline: unindented, and about as long (makeinfo underlines its display width). */
function isTitle(line: string, underline: string): boolean {
  const text = line.trimEnd();
  if (text === "" || /^\s/.test(text)) return false;
  return underline.length >= text.length / 2 && underline.length <= text.length * 2 + 2;
}

/**
 * Text as a reader shows it: markers gone (an image as its alt text), references as words (one may run over a line
 * break: its lines are kept), no DEL.
 */
function cleanText(raw: string): string {
  let text = raw;
  if (text.includes("\x1b")) {
    text = text.replace(MARKER, (_marker, kind: string, attributes: string) => {
      if (kind !== "image") return "";
      const alt = ALT.exec(attributes)?.[1];
      return alt ? alt.replace(/\\(.)/g, "$1") : "";
    });
  }
  if (text.includes("ote")) {
    text = text
      .replace(
        NOTE,
        (_note, n: string, space: string, label: string) => `${n === "N" ? "S" : "s"}ee${space}${label}`,
      )
      .replace(NOTE_WORD, (_note, n: string, space: string) => `${n === "N" ? "S" : "s"}ee${space}`);
  }
  return text.includes("\x7f") ? text.replace(DEL, "") : text;
}
