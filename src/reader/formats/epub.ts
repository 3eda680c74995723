/**
 * EPUB books (2 and 3; LlamaIndex's `SimpleDirectoryReader` reads them by default). An EPUB is a zip of XHTML
 * documents and a package document (`.opf`) that lists them in reading order (its spine), found through
 * `META-INF/container.xml`. The zip is checked by the zip guard; each document of the spine is read by the HTML
 * reader's rule (headings, paragraphs, lists, code, tables; page furniture dropped), in the spine's order, as one
 * document whose chapters are its headings. Left out: the navigation document (a table of contents of links) and
 * spine items marked not linear (`linear="no"`: notes or answers a reader reaches by link). A book whose text is
 * encrypted (DRM: `META-INF/encryption.xml` naming a content document, or Adobe's `rights.xml`) is skipped as
 * `encrypted`; fonts obfuscated by the EPUB rule are only fonts.
 */
import { htmlToBlocks } from "./html-blocks.js";
import { decodeXmlText } from "./office-package.js";
import type { DocumentBlock, DocumentReader, ReaderInput, ReadFileResult } from "./types.js";
import { ReaderSkipError } from "./types.js";
import { checkZip } from "./zip-guard.js";

const CONTAINER = "META-INF/container.xml";
const ENCRYPTION = "META-INF/encryption.xml";
const RIGHTS = "META-INF/rights.xml";
// The parts a book's text can be in, kept from the zip (images, fonts and styles are not).
const TEXT_PART = /\.(?:opf|xhtml|html|htm|xml)$/i;
const XHTML_TYPES = new Set(["application/xhtml+xml", "text/html"]);
// The EPUB rule for obfuscated fonts (IDPF and Adobe's): an encrypted resource that is only a font.
const FONT_OBFUSCATION = /http:\/\/www\.idpf\.org\/2008\/embedding|http:\/\/ns\.adobe\.com\/pdf\/enc#RC/;

/** Reads EPUB books (`.epub`). */
export const epubReader: DocumentReader = {
  format: "epub",
  extensions: [".epub"],
  async read({ bytes, path, limits, signal }: ReaderInput): Promise<ReadFileResult> {
    const { entries, text } = await checkZip({ bytes, path, limits, keep: (name) => TEXT_PART.test(name) });
    const rootfile = /<rootfile\b[^>]*\bfull-path="([^"]+)"/.exec(text(CONTAINER) ?? "")?.[1];
    const packageXml = rootfile === undefined ? undefined : text(decodeXmlText(rootfile));
    if (rootfile === undefined || packageXml === undefined) {
      throw new ReaderSkipError(
        "corrupt",
        `${path}: not a readable EPUB (no package document named by META-INF/container.xml).`,
      );
    }
    const spine = spineDocuments(packageXml, decodeXmlText(rootfile));
    if (entries.has(RIGHTS) || encryptsText(text(ENCRYPTION), spine)) {
      throw new ReaderSkipError(
        "encrypted",
        `${path}: the book's text is encrypted (DRM). Only a book without DRM can be read; export one from the app that holds the licence, if it allows.`,
      );
    }
    const blocks: DocumentBlock[] = [];
    for (const name of spine) {
      signal?.throwIfAborted();
      const html = text(name);
      if (html === undefined) continue;
      const read = await htmlToBlocks({ html, maxDepth: limits.maxDepth, withLines: false });
      for (const block of read.blocks) blocks.push(block);
    }
    if (blocks.length === 0)
      throw new ReaderSkipError("empty", `${path}: no text in the book's ${spine.length} documents.`);
    const title = /<dc:title\b[^>]*>([^<]*)<\/dc:title>/.exec(packageXml)?.[1]?.trim();
    const language = /<dc:language\b[^>]*>([^<]*)<\/dc:language>/.exec(packageXml)?.[1]?.trim();
    const metadata: Record<string, string | number> = {};
    if (title) metadata.title = decodeXmlText(title);
    if (language) metadata.language = decodeXmlText(language);
    return Object.keys(metadata).length > 0 ? { blocks, metadata } : { blocks };
  },
};

/**
 * The part names of the spine's XHTML documents, in reading order (hrefs resolved against the package document's
 * folder): the navigation document and items not linear left out.
 */
function spineDocuments(packageXml: string, packagePath: string): string[] {
  const folder = packagePath.slice(0, packagePath.lastIndexOf("/") + 1);
  const items = new Map<string, { href: string; type: string; nav: boolean }>();
  for (const match of packageXml.matchAll(/<item\b([^>]*)\/?>/g)) {
    const attributes = match[1] as string;
    const id = attribute(attributes, "id");
    const href = attribute(attributes, "href");
    if (id === undefined || href === undefined) continue;
    items.set(id, {
      href,
      type: attribute(attributes, "media-type") ?? "",
      nav: /\bnav\b/.test(attribute(attributes, "properties") ?? ""),
    });
  }
  const documents: string[] = [];
  for (const match of packageXml.matchAll(/<itemref\b([^>]*)\/?>/g)) {
    const attributes = match[1] as string;
    const item = items.get(attribute(attributes, "idref") ?? "");
    if (!item || item.nav || !XHTML_TYPES.has(item.type) || attribute(attributes, "linear") === "no")
      continue;
    const name = resolve(folder, item.href);
    if (!documents.includes(name)) documents.push(name);
  }
  return documents;
}

function attribute(attributes: string, name: string): string | undefined {
  const value = new RegExp(`(?:^|\\s)${name}="([^"]*)"`).exec(attributes)?.[1];
  return value === undefined ? undefined : decodeXmlText(value);
}

/** `text/ch1.xhtml#part` against `EPUB/` → `EPUB/text/ch1.xhtml` (percent-escapes decoded, `..` followed). */
function resolve(folder: string, href: string): string {
  const parts = folder.split("/").filter(Boolean);
  let target = href.replace(/[#?].*$/, "");
  try {
    target = decodeURIComponent(target);
  } catch {
    // A malformed escape: the name as written.
  }
  for (const part of target.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return parts.join("/");
}

/** Whether `encryption.xml` encrypts a document of the spine by anything but the font-obfuscation rule. */
function encryptsText(encryption: string | undefined, spine: readonly string[]): boolean {
  if (encryption === undefined) return false;
  for (const match of encryption.matchAll(/<(?:enc:)?EncryptedData\b[\s\S]*?<\/(?:enc:)?EncryptedData>/g)) {
    const data = match[0];
    if (FONT_OBFUSCATION.test(data)) continue;
    const uri = /<(?:enc:)?CipherReference\b[^>]*\bURI="([^"]+)"/.exec(data)?.[1];
    if (uri === undefined || spine.includes(resolve("", decodeXmlText(uri)))) return true;
  }
  return false;
}
