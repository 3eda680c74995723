import { zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { epubReader } from "./epub.js";
import { skipOf as readerSkip } from "./reader-skip.test.util.js";
import { createReaderRegistry } from "./registry.js";
import { DEFAULT_READER_LIMITS, type ReadFileResult } from "./types.js";

// Real EPUB packages (a zip: container, package document, XHTML documents), written here with fflate's zip writer.

const encode = (text: string) => new TextEncoder().encode(text);
const xhtml = (body: string) =>
  `<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>t</title></head><body>${body}</body></html>`;

/** A book: its package document in `OPS/`, the documents listed in the manifest in that order, the spine as given. */
function book(extra: Record<string, string> = {}, spine?: string) {
  const files: Record<string, Uint8Array> = {
    mimetype: encode("application/epub+zip"),
    "META-INF/container.xml": encode(
      '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OPS/book.opf" media-type="application/oebps-package+xml"/></rootfiles></container>',
    ),
    "OPS/book.opf": encode(
      `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Tides &amp; Moons</dc:title><dc:language>en</dc:language></metadata><manifest>` +
        '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>' +
        '<item id="c2" href="text/chapter%202.xhtml" media-type="application/xhtml+xml"/>' +
        '<item id="c1" href="text/../text/chapter1.xhtml" media-type="application/xhtml+xml"/>' +
        '<item id="notes" href="notes.xhtml" media-type="application/xhtml+xml"/>' +
        '<item id="css" href="style.css" media-type="text/css"/>' +
        `</manifest><spine>${spine ?? '<itemref idref="nav"/><itemref idref="c1"/><itemref idref="c2"/><itemref idref="notes" linear="no"/>'}</spine></package>`,
    ),
    "OPS/nav.xhtml": encode(
      xhtml('<nav epub:type="toc"><ol><li><a href="text/chapter1.xhtml">Tides</a></li></ol></nav>'),
    ),
    "OPS/text/chapter1.xhtml": encode(xhtml("<h1>1. Tides</h1><p>The moon pulls the sea twice a day.</p>")),
    "OPS/text/chapter 2.xhtml": encode(xhtml("<h1>2. Moons</h1><ul><li>Io</li><li>Europa</li></ul>")),
    "OPS/notes.xhtml": encode(xhtml("<p>Answer key: 42.</p>")),
  };
  for (const [name, text] of Object.entries(extra)) files[name] = encode(text);
  return zipSync(files);
}

const read = async (bytes: Uint8Array) =>
  (await epubReader.read({ bytes, path: "book.epub", limits: DEFAULT_READER_LIMITS })) as ReadFileResult;
const skipOf = (bytes: Uint8Array) => readerSkip(() => read(bytes));

describe("epubReader", () => {
  it("reads the spine's documents in order, by the HTML rule; the table of contents and non-linear items left out", async () => {
    const result = await read(book());
    expect(result.metadata).toEqual({ title: "Tides & Moons", language: "en" });
    expect(result.blocks.map((block) => [block.kind, block.text])).toEqual([
      ["heading", "1. Tides"],
      ["paragraph", "The moon pulls the sea twice a day."],
      ["heading", "2. Moons"],
      ["list_item", "Io"],
      ["list_item", "Europa"],
    ]);
    expect(createReaderRegistry().readerFor("Book.EPUB")?.reader.format).toBe("epub");
  });

  it("skips a book whose text is encrypted (DRM), and reads one whose fonts only are obfuscated", async () => {
    const encrypted = (uri: string, algorithm: string) =>
      `<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:EncryptionMethod Algorithm="${algorithm}"/><enc:CipherData><enc:CipherReference URI="${uri}"/></enc:CipherData></enc:EncryptedData></encryption>`;
    const drm = await skipOf(
      book({
        "META-INF/encryption.xml": encrypted(
          "OPS/text/chapter1.xhtml",
          "http://www.w3.org/2001/04/xmlenc#aes128-cbc",
        ),
      }),
    );
    expect([drm.code, drm.message]).toEqual([
      "encrypted",
      "book.epub: the book's text is encrypted (DRM). Only a book without DRM can be read; export one from the app that holds the licence, if it allows.",
    ]);
    expect((await skipOf(book({ "META-INF/rights.xml": "<adept:rights/>" }))).code).toBe("encrypted");
    const fonts = await read(
      book({
        "META-INF/encryption.xml": encrypted("OPS/fonts/serif.otf", "http://www.idpf.org/2008/embedding"),
      }),
    );
    expect(fonts.blocks[0]?.text).toBe("1. Tides");
  });

  it("says what is wrong with a zip that is no book, and with a book of no text", async () => {
    const notABook = await skipOf(zipSync({ "word/document.xml": encode("<w:document/>") }));
    expect([notABook.code, notABook.message]).toEqual([
      "corrupt",
      "book.epub: not a readable EPUB (no package document named by META-INF/container.xml).",
    ]);
    const empty = await skipOf(book({}, '<itemref idref="nav"/>'));
    expect([empty.code, empty.message]).toEqual(["empty", "book.epub: no text in the book's 0 documents."]);
  });
});
