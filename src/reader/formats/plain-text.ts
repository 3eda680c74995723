import { setImmediate as nextTurn } from "node:timers/promises";
import { binaryKind } from "./looks-binary.js";
import type { DocumentBlock, DocumentReader, ReaderInput, ReadFileResult } from "./types.js";
import { ReaderSkipError } from "./types.js";

const utf8 = new TextDecoder("utf-8", { fatal: true });
// For the valid stretches between bytes read as Windows-1252 (a byte the scan let through becomes U+FFFD, not an error).
const utf8Stretch = new TextDecoder("utf-8");

/**
 * Decodes a file's bytes as text, the one place ragsynth decides what "a text file" is: UTF-8 (a BOM is
 * dropped), or UTF-16 LE/BE when the file starts with that byte-order mark. Line endings become `\n`.
 *
 * A byte that is not part of a valid UTF-8 sequence is read as Windows-1252 (Latin-1 and its punctuation), as long
 * as no more than {@link MAX_FALLBACK_RUN} such bytes stand in a row: older changelogs and NEWS files are mostly
 * ASCII with a few Latin-1 names (Debian's make NEWS: "Klaus Kämpf", its ä the one byte 0xe4), sometimes beside
 * UTF-8 ones, and were skipped whole. Longer runs are words of another legacy encoding (KOI8-R, ISO-8859-7, Shift-JIS, GBK), which
 * Windows-1252 would turn into nonsense: such a file is skipped as `invalid_utf8`.
 *
 * @param bytes - The file's bytes.
 * @param path - The file's path, for messages only.
 * @throws {ReaderSkipError} `binary` when the bytes hold a NUL (and no UTF-16 BOM); `invalid_utf8` naming the
 *   line and byte offset of the first run of bytes that are neither UTF-8 nor Western European text.
 */
export function decodeText(bytes: Uint8Array, path = "file"): string {
  let text: string;
  if (bytes[0] === 0xff && bytes[1] === 0xfe) {
    text = decodeUtf16(bytes, "utf-16le", path);
  } else if (bytes[0] === 0xfe && bytes[1] === 0xff) {
    text = decodeUtf16(bytes, "utf-16be", path);
  } else {
    const nul = bytes.indexOf(0);
    if (nul !== -1) {
      const kind = binaryKind(bytes);
      throw new ReaderSkipError(
        "binary",
        kind
          ? `${path}: ${kind}`
          : `${path}: binary file (NUL byte at offset ${nul}); expected text (UTF-8, or UTF-16 with a byte-order mark).`,
      );
    }
    try {
      text = utf8.decode(bytes);
    } catch {
      text = decodeWithFallback(bytes, path);
    }
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  }
  return text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text;
}

function decodeUtf16(bytes: Uint8Array, encoding: "utf-16le" | "utf-16be", path: string): string {
  try {
    // TextDecoder drops the BOM itself (ignoreBOM defaults to false).
    return new TextDecoder(encoding, { fatal: true }).decode(bytes);
  } catch {
    throw new ReaderSkipError(
      "invalid_utf8",
      `${path}: starts with a ${encoding.toUpperCase()} byte-order mark but is not valid ${encoding.toUpperCase()} (odd length or an unpaired surrogate). Save it again as UTF-8.`,
    );
  }
}

/** The most bytes in a row that are not UTF-8 and are still read as Windows-1252 (see {@link decodeText}). */
const MAX_FALLBACK_RUN = 3;

// Windows-1252's characters for 0x80-0x9f, as the WHATWG Encoding Standard maps them (its five unused bytes to the
// C1 controls); 0xa0-0xff are Latin-1's, the code point itself. Written out: Node 20's TextDecoder("windows-1252")
// decodes 0x80-0x9f as Latin-1's C1 controls (0x93 as U+0093, not a quotation mark).
const WINDOWS_1252_HIGH =
  "\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f" +
  "\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178";

/** The Windows-1252 character of a byte that is not ASCII. */
function windows1252(byte: number): string {
  return byte < 0xa0 ? (WINDOWS_1252_HIGH[byte - 0x80] as string) : String.fromCharCode(byte);
}

/**
 * UTF-8 with each byte outside a valid sequence read as Windows-1252 (run only once strict decoding failed).
 * @throws {ReaderSkipError} `invalid_utf8` when more than {@link MAX_FALLBACK_RUN} such bytes stand in a row.
 */
function decodeWithFallback(bytes: Uint8Array, path: string): string {
  const parts: string[] = [];
  let start = 0;
  let runStart = -1;
  let runEnd = -1;
  while (start < bytes.length) {
    const bad = firstInvalidUtf8Offset(bytes, start);
    if (bad > start) parts.push(utf8Stretch.decode(bytes.subarray(start, bad)));
    if (bad === bytes.length) break;
    if (bad !== runEnd) runStart = bad;
    runEnd = bad + 1;
    if (runEnd - runStart > MAX_FALLBACK_RUN) throw invalidUtf8(bytes, runStart, path);
    parts.push(windows1252(bytes[bad] as number));
    start = bad + 1;
  }
  return parts.join("");
}

/** Names an invalid UTF-8 sequence by line and byte offset. */
function invalidUtf8(bytes: Uint8Array, offset: number, path: string): ReaderSkipError {
  let line = 1;
  for (let index = 0; index < offset; index++) if (bytes[index] === 0x0a) line++;
  const shown = Array.from(bytes.subarray(offset, offset + 4), (byte) =>
    byte.toString(16).padStart(2, "0"),
  ).join(" ");
  return new ReaderSkipError(
    "invalid_utf8",
    `${path}: invalid UTF-8 at line ${line}, byte offset ${offset} (bytes ${shown}): more than ${MAX_FALLBACK_RUN} bytes in a row that are neither UTF-8 nor Western European (Windows-1252) text; expected UTF-8. Convert the file to UTF-8 from its encoding (iconv -f koi8-r -t utf-8, or cp1251, shift-jis, gbk…).`,
  );
}

/** The offset of the first byte at or after `from` that does not start a valid UTF-8 sequence (or the length). */
function firstInvalidUtf8Offset(bytes: Uint8Array, from: number): number {
  let index = from;
  while (index < bytes.length) {
    const lead = bytes[index] as number;
    const length = lead < 0x80 ? 1 : lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : 4;
    if (lead >= 0xf5 || (lead >= 0x80 && lead < 0xc2)) return index;
    if (index + length > bytes.length) return index;
    const second = bytes[index + 1] as number;
    if (length >= 2) {
      const low = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
      const high = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
      if (second < low || second > high) return index;
      for (let next = 2; next < length; next++) {
        const byte = bytes[index + next] as number;
        if (byte < 0x80 || byte > 0xbf) return index;
      }
    }
    index += length;
  }
  return bytes.length;
}

/**
 * Splits text into paragraphs at blank lines, each with its 1-based line range. Lines of only whitespace count
 * as blank; lines keep their indentation, a paragraph's trailing whitespace goes. Used for plain text and for the
 * free text of other text formats.
 */
export function paragraphBlocks(text: string, firstLine = 1): DocumentBlock[] {
  const blocks: DocumentBlock[] = [];
  const lines = text.split("\n");
  let start = -1;
  const flush = (end: number) => {
    if (start === -1) return;
    blocks.push({
      kind: "paragraph",
      text: lines.slice(start, end).join("\n").trimEnd(),
      lines: { start: start + firstLine, end: end - 1 + firstLine },
    });
    start = -1;
  };
  for (let index = 0; index < lines.length; index++) {
    if ((lines[index] as string).trim() === "") flush(index);
    else if (start === -1) start = index;
  }
  flush(lines.length);
  return blocks;
}

/**
 * Reads any text file as paragraphs split on blank lines, as LlamaIndex reads files it has no reader for.
 * Binaries, and text that is neither UTF-8 nor mostly Western European, are skipped with their reason.
 */
// Text past this many characters is split into paragraphs in slices, with the event loop between them.
const SLICE_CHARS = 512 * 1024;

/**
 * {@link paragraphBlocks} for text of any size: in slices of about 512 kB cut at blank lines, yielding to the event
 * loop between them, so Ctrl-C and SIGTERM are heard while a 30 MB file is read.
 */
export async function paragraphBlocksInSlices(text: string, signal?: AbortSignal): Promise<DocumentBlock[]> {
  if (text.length <= SLICE_CHARS) return paragraphBlocks(text);
  const blocks: DocumentBlock[] = [];
  let start = 0;
  let line = 1;
  while (start < text.length) {
    const blank = text.indexOf("\n\n", start + SLICE_CHARS);
    const end = blank === -1 ? text.length : blank + 1;
    const slice = text.slice(start, end);
    for (const block of paragraphBlocks(slice, line)) blocks.push(block);
    line += countLines(slice);
    start = end;
    if (start < text.length) {
      await nextTurn();
      signal?.throwIfAborted();
    }
  }
  return blocks;
}

function countLines(text: string): number {
  let count = 0;
  for (let index = text.indexOf("\n"); index !== -1; index = text.indexOf("\n", index + 1)) count++;
  return count;
}

// PostScript's first line ("%!PS-Adobe-3.0", "%!PS"): a program that draws pages, ASCII but not text to read.
const POSTSCRIPT = [0x25, 0x21, 0x50, 0x53];

/** Whether `bytes` are a PostScript program (its `%!PS` first line), after a UTF-8 byte-order mark if any. */
function isPostScript(bytes: Uint8Array): boolean {
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return POSTSCRIPT.every((byte, index) => bytes[start + index] === byte);
}

// A Devhelp book index (GNOME's help browser; Debian's python3.11-doc ships `python3.11.devhelp.gz`): an XML list of
// every page, section and function with its link, `<book …><chapters>…`. Read as text it was a source of answers
// (`html#os.waitid" name="waitid…`) beside the pages it links to, which are read.
const DEVHELP = /^(?:<\?xml[^>]*\?>\s*)?(?:<!--[\s\S]*?-->\s*)*<book\s[^>]*>\s*<chapters>/;

/** Whether `bytes` are a Devhelp book index: its `<book>` root and `<chapters>` first, in the first 4 KiB. */
function isDevhelpIndex(bytes: Uint8Array): boolean {
  // Text files are read here by the thousand: only one whose first character (after a BOM, spaces) is `<` is decoded.
  let start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (
    start < bytes.length &&
    (bytes[start] === 0x20 || ((bytes[start] as number) >= 0x09 && (bytes[start] as number) <= 0x0d))
  )
    start++;
  if (bytes[start] !== 0x3c) return false;
  return DEVHELP.test(new TextDecoder("latin1").decode(bytes.subarray(start, start + 4096)));
}

export const plainTextReader: DocumentReader = {
  format: "text",
  extensions: [".txt", ".text"],
  async read({ bytes, path, signal }: ReaderInput): Promise<ReadFileResult> {
    // Read as text, a PostScript manual is its drawing code: thousands of chunks of operators and font data
    // (Debian's valgrind_manual.ps.gz: 12,136 chunks, 93% of the folder's index) that no question should find.
    if (isPostScript(bytes)) {
      throw new ReaderSkipError(
        "unsupported",
        `${path}: PostScript (a program that draws pages), not text. Convert it to PDF (ps2pdf from Ghostscript) and index the PDF, or to text (ps2ascii); a PDF of it beside it is read as usual.`,
      );
    }
    if (isDevhelpIndex(bytes)) {
      throw new ReaderSkipError(
        "unsupported",
        `${path}: a Devhelp index (a list of the book's pages and their links), not text: the HTML pages it lists are read.`,
      );
    }
    const blocks = await paragraphBlocksInSlices(decodeText(bytes, path), signal);
    if (blocks.length === 0)
      throw new ReaderSkipError("empty", `${path}: no text (empty or only whitespace).`);
    return { blocks };
  },
};
