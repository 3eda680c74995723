import { htmlToBlocks } from "./html-blocks.js";
import { CORE_PROPERTIES, decodeXmlText, packageTitle, refuseCompoundFile } from "./office-package.js";
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
  refuseCompoundFile(bytes, path, { name: "DOCX", legacy: "Word (.doc)", ending: ".docx" });
  const { entries } = await checkZip({
    bytes,
    path,
    limits,
    keep: [CORE_PROPERTIES, "word/document.xml"],
  });
  signal?.throwIfAborted();
  const metadata: Record<string, string | number> = {};
  const title = packageTitle(entries.get(CORE_PROPERTIES));
  if (title) metadata.title = title;
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
