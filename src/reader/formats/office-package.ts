import { ReaderSkipError } from "./types.js";

// What the Office Open XML readers (DOCX, PPTX) share: the refusal of a file that is not such a package (encrypted,
// or the legacy binary format) and the XML text entities their flat fallbacks decode.

const compoundFileMagic = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

/**
 * Throws when `bytes` are an OLE compound file, not a zip package: Office saves a password-protected DOCX or PPTX
 * as one holding an "EncryptedPackage" stream (`encrypted`), and the legacy formats (.doc, .ppt) are one too
 * (`unsupported`).
 * @param kind - How the package is named to users (`DOCX`) and the app, legacy format and ending to save as.
 */
export function refuseCompoundFile(
  bytes: Uint8Array,
  path: string,
  kind: { name: string; legacy: string; ending: string },
): void {
  if (!compoundFileMagic.every((byte, index) => bytes[index] === byte)) return;
  const encrypted = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(
    "EncryptedPackage",
    0,
    "utf16le",
  );
  if (encrypted) {
    throw new ReaderSkipError(
      "encrypted",
      `${path}: the ${kind.name} is encrypted and needs a password to open. Save a copy without the password to read it.`,
    );
  }
  throw new ReaderSkipError(
    "unsupported",
    `${path}: this is a legacy ${kind.legacy} file, not ${article(kind.name)} ${kind.name}. Save it as ${kind.ending} to read it.`,
  );
}

/** XML text with its five predefined entities decoded. */
export function decodeXmlText(text: string): string {
  return text
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, "&");
}

/** The part holding a package's properties (its title), in DOCX and PPTX alike. */
export const CORE_PROPERTIES = "docProps/core.xml";

/** The title in a package's properties (`docProps/core.xml`'s `dc:title`), if it has one. */
export function packageTitle(core: Uint8Array | undefined): string | undefined {
  const title = core && /<dc:title>([^<]*)<\/dc:title>/.exec(new TextDecoder().decode(core))?.[1]?.trim();
  return title ? decodeXmlText(title) : undefined;
}

/** `a DOCX`, `an XLSX`: the article of a name read letter by letter. */
function article(name: string): string {
  return /^[AEFHILMNORSX]/.test(name) ? "an" : "a";
}
