// How much of a file is looked at for NUL bytes before it is decoded: git and ripgrep sniff the first 8 KiB too.
const SNIFF_BYTES = 8192;

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

// What a binary file is, by its first bytes, and what to do to read what it holds. Magic numbers from each format's
// specification (zip's APPNOTE, POSIX tar's `ustar` at 257, the ELF and PE headers, SQLite's file header, …).
const KINDS: readonly { magic: readonly number[] | string; at?: number; kind: string }[] = [
  { magic: "PK\x03\x04", kind: "a zip archive; extract it (unzip) and index the folder it makes" },
  { magic: "PK\x05\x06", kind: "an empty zip archive" },
  {
    magic: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c],
    kind: "a 7z archive; extract it (7z x) and index the folder it makes",
  },
  { magic: "Rar!\x1a\x07", kind: "a RAR archive; extract it (unrar x) and index the folder it makes" },
  { magic: "ustar", at: 257, kind: "a tar archive; extract it (tar -xf) and index the folder it makes" },
  {
    magic: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00],
    kind: "xz-compressed data; decompress it (unxz); .gz files are read",
  },
  {
    magic: [0x28, 0xb5, 0x2f, 0xfd],
    kind: "zstd-compressed data; decompress it (unzstd); .gz files are read",
  },
  { magic: "BZh", kind: "bzip2-compressed data; decompress it (bunzip2); .gz files are read" },
  {
    magic: "SQLite format 3\x00",
    kind: "an SQLite database; export what it holds (sqlite3's .dump, or a query to CSV)",
  },
  {
    magic: [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1],
    kind: "a legacy Office file (Word, Excel or PowerPoint 97–2003); save it as .docx, .xlsx or .pptx",
  },
  { magic: "%PDF-", kind: "a PDF; give it a .pdf ending (or --read-as .<ending>=pdf)" },
  { magic: [0xf7, 0x02], kind: "TeX's DVI output; make a PDF of it (dvipdfmx) and index the PDF" },
  { magic: [0xf7, 0x59], kind: "a TeX font (PK), not a document" },
  { magic: "\x7fELF", kind: "a program or library (ELF), not a document" },
  {
    magic: [0xca, 0xfe, 0xba, 0xbe],
    kind: "compiled code (a Java class or a macOS program), not a document",
  },
  { magic: [0xcf, 0xfa, 0xed, 0xfe], kind: "a macOS program or library, not a document" },
  { magic: "\x00asm", kind: "a WebAssembly module, not a document" },
  { magic: "MZ", kind: "a Windows program or library, not a document" },
  { magic: [0x00, 0x01, 0x00, 0x00, 0x00], kind: "a font (TrueType), not a document" },
  { magic: "OTTO", kind: "a font (OpenType), not a document" },
  { magic: "wOFF", kind: "a font (WOFF), not a document" },
  { magic: "wOF2", kind: "a font (WOFF2), not a document" },
  { magic: [0x80, 0x01], kind: "a font (PostScript Type 1), not a document" },
  {
    magic: "# Sphinx inventory",
    kind: "a Sphinx inventory (objects.inv: the names a Sphinx site links to), not a document",
  },
  { magic: "acsp", at: 36, kind: "a colour profile (ICC), not a document" },
  { magic: [0x00, 0x00, 0x01, 0x00], kind: "an icon (ICO), not a document" },
  { magic: "U3D\x00", kind: "a 3D model (U3D), not a document" },
  {
    magic: [0x89, 0x50, 0x4e, 0x47],
    kind: "an image (PNG); give it its ending to index it by its file name",
  },
  { magic: [0xff, 0xd8, 0xff], kind: "an image (JPEG); give it its ending to index it by its file name" },
  { magic: "GIF8", kind: "an image (GIF); give it its ending to index it by its file name" },
];

/**
 * What a binary file whose first bytes are `head` is, with what to do to read what it holds ("a zip archive; extract
 * it (unzip) and index the folder it makes"), or undefined when its first bytes name no format known here.
 */
export function binaryKind(head: Uint8Array): string | undefined {
  const packaged = zipPackageKind(head);
  if (packaged) return packaged;
  for (const { magic, at = 0, kind } of KINDS) {
    const bytes = typeof magic === "string" ? [...magic].map((char) => char.charCodeAt(0)) : magic;
    if (head.length >= at + bytes.length && bytes.every((byte, index) => head[at + index] === byte))
      return kind;
  }
  return undefined;
}

/** Why a file whose first bytes are `head` is passed over as binary: what it is when known, else its NUL bytes. */
export function binaryReason(head: Uint8Array): string {
  return binaryKind(head) ?? "binary file (contains NUL bytes)";
}

// Zip files that are not archives to extract: a package format names itself in its first entry (APPNOTE's local
// file header: name length at 26, extra length at 28, name at 30, then the stored data).
const PACKAGE_KINDS: Readonly<Record<string, string>> = {
  "application/vnd.oasis.opendocument.text": "an OpenDocument text; give it an .odt ending to read it",
  "application/vnd.oasis.opendocument.spreadsheet":
    "an OpenDocument spreadsheet; give it an .ods ending to read it",
  "application/vnd.oasis.opendocument.presentation":
    "an OpenDocument presentation; give it an .odp ending to read it",
  "application/vnd.oasis.opendocument.graphics":
    "an OpenDocument drawing; export it as PDF to index its text",
  "application/epub+zip": "an EPUB book; give it an .epub ending to read it",
};

/**
 * What a zip whose first entry shows its package format is (OpenDocument and EPUB by their stored `mimetype`; Office
 * Open XML by its parts' folders, in whatever order the writer put them; jar by `META-INF/`), or undefined.
 */
function zipPackageKind(head: Uint8Array): string | undefined {
  if (head.length < 30 || head[0] !== 0x50 || head[1] !== 0x4b || head[2] !== 0x03 || head[3] !== 0x04)
    return undefined;
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const nameLength = view.getUint16(26, true);
  const dataStart = 30 + nameLength + view.getUint16(28, true);
  const name = String.fromCharCode(...head.subarray(30, Math.min(head.length, 30 + nameLength)));
  if (/^(?:\[Content_Types\]\.xml$|_rels\/|docProps\/|word\/|xl\/|ppt\/)/.test(name))
    return "an Office file (Word, Excel or PowerPoint); give it its ending (.docx, .xlsx or .pptx) to read it";
  if (name.startsWith("META-INF/")) return "a Java archive (jar), not a document";
  // A stored (method 0) `mimetype` entry: OpenDocument and EPUB.
  if (name !== "mimetype" || view.getUint16(8, true) !== 0) return undefined;
  const size = view.getUint32(18, true);
  if (size > 100 || dataStart + size > head.length) return undefined;
  const mimetype = String.fromCharCode(...head.subarray(dataStart, dataStart + size));
  return (
    PACKAGE_KINDS[mimetype] ??
    `a package of type ${mimetype}, not an archive to extract or a document read here`
  );
}
