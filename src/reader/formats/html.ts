import { TextDecoder } from "node:util";
import { htmlToBlocks } from "./html-blocks.js";
import type { DocumentReader, ReaderInput, ReadFileResult } from "./types.js";

// The charset is found as browsers do (WHATWG encoding sniffing, simplified): a byte-order mark, else a
// `<meta charset>`, `<meta http-equiv="Content-Type" content="…; charset=…">` or an XHTML page's
// `<?xml … encoding="…"?>` in the first 1024 bytes, else
// UTF-8 when the bytes are valid UTF-8, else windows-1252. TextDecoder knows the legacy encodings by their labels.

const declaredCharset =
  /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)|^\s*<\?xml[^>]+encoding\s*=\s*["']([\w.:-]+)/i;

// windows-1252's bytes 0x80–0x9F (WHATWG's table; 0x81, 0x8D, 0x8F, 0x90, 0x9D stay C1 controls). Node 20's
// TextDecoder("windows-1252") decodes these as Latin-1 control characters, so smart quotes would be lost.
const windows1252High =
  "\u20AC\u0081\u201A\u0192\u201E\u2026\u2020\u2021\u02C6\u2030\u0160\u2039\u0152\u008D\u017D\u008F" +
  "\u0090\u2018\u2019\u201C\u201D\u2022\u2013\u2014\u02DC\u2122\u0161\u203A\u0153\u009D\u017E\u0178";

function decodeWith(label: string, bytes: Uint8Array): { text: string; charset: string } | undefined {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label);
  } catch {
    return undefined;
  }
  const text = decoder.decode(bytes);
  if (decoder.encoding !== "windows-1252") return { text, charset: decoder.encoding };
  return {
    text: text.replace(
      /[\u0080-\u009F]/g,
      (control) => windows1252High[control.charCodeAt(0) - 0x80] ?? control,
    ),
    charset: decoder.encoding,
  };
}

function byteOrderMark(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8";
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  return undefined;
}

/** Decodes an HTML file's bytes by its byte-order mark, its declared charset, or else as UTF-8 / windows-1252. */
export function decodeHtml(bytes: Uint8Array): { text: string; charset: string } {
  const mark = byteOrderMark(bytes);
  if (mark !== undefined) return decodeWith(mark, bytes) as { text: string; charset: string };
  const found = declaredCharset.exec(new TextDecoder("latin1").decode(bytes.subarray(0, 1024)));
  const declared = (found?.[1] ?? found?.[2])?.toLowerCase();
  // A page that says UTF-16 in a meta tag without a BOM is ASCII-compatible in fact: browsers read it as UTF-8.
  const label = declared?.startsWith("utf-16") ? "utf-8" : declared;
  const decoded = label === undefined ? undefined : decodeWith(label, bytes);
  if (decoded !== undefined) return decoded;
  try {
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes), charset: "utf-8" };
  } catch {
    return decodeWith("windows-1252", bytes) as { text: string; charset: string };
  }
}

async function readHtml({ bytes, limits }: ReaderInput): Promise<ReadFileResult> {
  const { text, charset } = decodeHtml(bytes);
  const { blocks, title, language } = await htmlToBlocks({
    html: text,
    maxDepth: limits.maxDepth,
    withLines: true,
  });
  const metadata: Record<string, string | number> = { charset };
  if (title !== undefined) metadata.title = title;
  if (language !== undefined) metadata.language = language;
  return { blocks, metadata };
}

/**
 * Reads HTML pages with htmlparser2: scripts, styles, navigation, headers, footers, asides and hidden elements
 * dropped, and only `<main>`/`<article>`/`[role=main]` content kept when a page has them; headings, list items,
 * `<pre>` code (language from a `language-xx` class) and table rows (cells joined by `" | "`) kept as blocks
 * with their source lines; link text kept; the page's charset honoured; `<title>` into `metadata.title`.
 * Nesting deeper than `limits.maxDepth` is read as flat text.
 */
export const htmlReader: DocumentReader = {
  format: "html",
  extensions: [".html", ".htm", ".xhtml"],
  read: readHtml,
};
