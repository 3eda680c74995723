import { htmlToBlocks } from "./html-blocks.js";
import {
  type DocumentBlock,
  type DocumentReader,
  type ReaderInput,
  ReaderSkipError,
  type ReadFileResult,
} from "./types.js";
import { checkZip } from "./zip-guard.js";

// mammoth reads a DOCX's paragraphs, "Heading 1".."Heading 6" styles, lists and tables into plain semantic
// HTML (no styling), which the HTML reader's markup rule turns into blocks. It is loaded on the first DOCX only.

// mammoth reads every paragraph style it does not know as a plain <p>, so a code block became prose lines. Paragraphs
// in the styles Word and pandoc give code ("HTML Preformatted" is Word's own; "Source Code" pandoc's, its lines joined
// by breaks) become <pre>, a code block; consecutive ones are one block, a line each.
const CODE_STYLES = ["Source Code", "HTML Preformatted", "Code", "Code Block"].map(
  (name) => `p[style-name='${name}'] => pre:separator('\\n')`,
);

const compoundFileMagic = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

function isCompoundFile(bytes: Uint8Array): boolean {
  return compoundFileMagic.every((byte, index) => bytes[index] === byte);
}

function decodeXmlText(text: string): string {
  return text
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, "&");
}

/** The deepest element nesting of an XML text, stopping once past `limit` (a linear scan, no parser). */
function xmlDepthOver(xml: string, limit: number): boolean {
  let depth = 0;
  for (let at = xml.indexOf("<"); at !== -1; at = xml.indexOf("<", at + 1)) {
    const next = xml.charCodeAt(at + 1);
    if (next === 0x2f /* / */) depth--;
    else if (next !== 0x3f /* ? */ && next !== 0x21 /* ! */) {
      const end = xml.indexOf(">", at);
      if (end === -1) break;
      if (xml.charCodeAt(end - 1) !== 0x2f) depth++;
      if (depth > limit) return true;
    }
  }
  return false;
}

/** A document nested past the depth limit is read as flat text: each paragraph's runs, in order. */
function flatParagraphs(xml: string): DocumentBlock[] {
  const blocks: DocumentBlock[] = [];
  for (const part of xml.split("</w:p>")) {
    const text = [...part.matchAll(/<w:t(?:\s[^>]*)?>([^<]*)<\/w:t>/g)].map((match) => match[1]).join("");
    const clean = decodeXmlText(text).replace(/\s+/g, " ").trim();
    if (clean.length > 0) blocks.push({ kind: "paragraph", text: clean });
  }
  return blocks;
}

async function readDocx({ bytes, path, limits, signal }: ReaderInput): Promise<ReadFileResult> {
  if (isCompoundFile(bytes)) {
    // Word saves a password-protected DOCX as an OLE compound file holding an "EncryptedPackage" stream.
    const encrypted = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(
      "EncryptedPackage",
      0,
      "utf16le",
    );
    if (encrypted) {
      throw new ReaderSkipError(
        "encrypted",
        `${path}: the DOCX is encrypted and needs a password to open. Save a copy without the password to read it.`,
      );
    }
    throw new ReaderSkipError(
      "unsupported",
      `${path}: this is a legacy Word (.doc) file, not a DOCX. Save it as .docx to read it.`,
    );
  }
  const { entries } = await checkZip({
    bytes,
    path,
    limits,
    keep: ["docProps/core.xml", "word/document.xml"],
  });
  signal?.throwIfAborted();
  const metadata: Record<string, string | number> = {};
  const core = entries.get("docProps/core.xml");
  const title = core && /<dc:title>([^<]*)<\/dc:title>/.exec(new TextDecoder().decode(core))?.[1]?.trim();
  if (title) metadata.title = decodeXmlText(title);
  // mammoth walks the XML recursively: past maxDepth the structure is not read, only the text.
  const documentXml = entries.get("word/document.xml");
  const xml = documentXml === undefined ? "" : new TextDecoder().decode(documentXml);
  if (xmlDepthOver(xml, limits.maxDepth)) {
    const flattened = `nesting deeper than ${limits.maxDepth}`;
    return { blocks: flatParagraphs(xml), metadata: { ...metadata, flattened } };
  }
  const mammoth = (await import("mammoth")).default;
  let html: string;
  try {
    const result = await mammoth.convertToHtml(
      { buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
      // No images: their data URLs would only be dropped again, at the cost of base64-encoding them.
      {
        convertImage: mammoth.images.imgElement(async () => ({ src: "" })),
        externalFileAccess: false,
        styleMap: CODE_STYLES,
      },
    );
    // A code paragraph's line breaks come out as <br /> inside <pre>, where the HTML reader keeps only text: as
    // newlines they stay the code's lines.
    html = result.value.replace(/<pre>[\s\S]*?<\/pre>/g, (pre) => pre.replace(/<br\s*\/?>/g, "\n"));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ReaderSkipError("corrupt", `${path}: not a readable DOCX (${reason}).`);
  }
  const { blocks } = await htmlToBlocks({ html, maxDepth: limits.maxDepth, withLines: false });
  return { blocks, metadata };
}

/**
 * Reads Word documents (DOCX) with mammoth: paragraphs, headings from the "Heading 1".."Heading 6" styles, list
 * items and table rows as blocks; the title from the document's properties. The zip is checked against
 * `limits.maxDecompressedBytes` and `limits.maxCompressionRatio` before it is opened (a zip bomb is skipped as
 * `too_large`); a password-protected DOCX is skipped as `encrypted`, a damaged one as `corrupt`.
 */
export const docxReader: DocumentReader = {
  format: "docx",
  extensions: [".docx"],
  read: readDocx,
};
