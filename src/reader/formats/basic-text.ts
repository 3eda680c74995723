import { type DocumentBlock, type DocumentReader, ReaderSkipError } from "./types.js";

// How much of a file is looked at for NUL bytes before it is decoded: git and ripgrep sniff the first 8 KiB too.
const SNIFF_BYTES = 8192;

/**
 * The bytes of a text file as a string: UTF-8 (a BOM dropped), or UTF-16 with its BOM; `\r\n` and lone `\r`
 * become `\n`.
 * @throws ReaderSkipError `binary` when the bytes hold NUL bytes (and no UTF-16 BOM), `invalid_utf8` when they
 *   are not valid UTF-8
 */
export function decodeText(bytes: Uint8Array): string {
  const utf16 = utf16Encoding(bytes);
  if (utf16) {
    try {
      return normalizeNewlines(new TextDecoder(utf16, { fatal: true }).decode(bytes));
    } catch {
      throw new ReaderSkipError(
        "invalid_utf8",
        `not valid ${utf16.toUpperCase()} text despite its byte-order mark`,
      );
    }
  }
  if (bytes.includes(0)) throw new ReaderSkipError("binary", "binary file (contains NUL bytes)");
  try {
    return normalizeNewlines(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw new ReaderSkipError("invalid_utf8", "not valid UTF-8 text; convert it to UTF-8 to read it");
  }
}

/**
 * Whether a file whose first bytes are `head` is binary: a NUL byte in its first 8 KiB and no UTF-16 byte-order
 * mark. Lets the walk pass over a large binary without reading it whole.
 */
export function looksBinary(head: Uint8Array): boolean {
  return utf16Encoding(head) === undefined && head.subarray(0, SNIFF_BYTES).includes(0);
}

/** How many first bytes {@link looksBinary} looks at. */
export const SNIFF_LENGTH = SNIFF_BYTES;

function utf16Encoding(bytes: Uint8Array): "utf-16le" | "utf-16be" | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  return undefined;
}

function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

/**
 * Text as paragraph blocks: one per run of lines between blank lines (lines holding only whitespace count as
 * blank), each with its 1-based line range. Lines keep their indentation; trailing whitespace of a paragraph goes.
 */
export function paragraphBlocks(text: string): DocumentBlock[] {
  const blocks: DocumentBlock[] = [];
  const lines = text.split("\n");
  let start = -1;
  const close = (end: number) => {
    if (start < 0) return;
    blocks.push({
      kind: "paragraph",
      text: lines.slice(start, end).join("\n").trimEnd(),
      lines: { start: start + 1, end },
    });
    start = -1;
  };
  lines.forEach((line, index) => {
    if (line.trim() === "") close(index);
    else if (start < 0) start = index;
  });
  close(lines.length);
  return blocks;
}

/** A reader of text files as paragraphs, named `format` for the endings given. */
function paragraphReader(format: string, extensions: readonly string[]): DocumentReader {
  return {
    format,
    extensions,
    read: ({ bytes }) => ({ blocks: paragraphBlocks(decodeText(bytes)) }),
  };
}

/**
 * Plain text: one `paragraph` block per blank-line-separated paragraph, with its lines. Also the reader of any
 * file whose ending has no reader but which is text (no NUL bytes; UTF-8, or UTF-16 with a BOM), as LlamaIndex's
 * SimpleDirectoryReader reads unknown text files.
 */
export const textReader: DocumentReader = paragraphReader("text", [".txt", ".text"]);

/**
 * Markdown read as plain paragraphs (the text as written, `#`s included): the reader until a Markdown parser
 * takes `.md` over in the registry.
 */
export const markdownParagraphReader: DocumentReader = paragraphReader("markdown", [".md", ".markdown"]);
