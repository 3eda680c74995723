import { describe, expect, it } from "vitest";
import { decodeText, paragraphBlocks, paragraphBlocksInSlices, plainTextReader } from "./plain-text.js";
import { DEFAULT_READER_LIMITS, ReaderSkipError } from "./types.js";

const encode = (text: string) => new TextEncoder().encode(text);

function skipOf(run: () => unknown): ReaderSkipError {
  try {
    run();
  } catch (error) {
    if (ReaderSkipError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a ReaderSkipError");
}

describe("decodeText", () => {
  it("decodes UTF-8, dropping a BOM and turning CRLF and CR into LF", () => {
    expect(decodeText(encode("\uFEFFcafé\r\nline\rend"))).toBe("café\nline\nend");
  });

  it("decodes UTF-16 LE and BE files by their byte-order mark", () => {
    const text = "Grüße\n𝄞 clef";
    const le = new Uint8Array([0xff, 0xfe, ...Buffer.from(text, "utf16le")]);
    const beBody = Buffer.from(text, "utf16le");
    for (let index = 0; index < beBody.length; index += 2) {
      const low = beBody[index] as number;
      beBody[index] = beBody[index + 1] as number;
      beBody[index + 1] = low;
    }
    const be = new Uint8Array([0xfe, 0xff, ...beBody]);
    expect(decodeText(le)).toBe(text);
    expect(decodeText(be)).toBe(text);
  });

  it("calls a file with NUL bytes binary, naming the offset", () => {
    const error = skipOf(() => decodeText(new Uint8Array([0x68, 0x69, 0x00, 0x01]), "a.bin"));
    expect(error.code).toBe("binary");
    expect(error.message).toContain("a.bin");
    expect(error.message).toContain("offset 2");
  });

  it("reads bytes outside UTF-8 as Windows-1252, beside UTF-8 in the same file", () => {
    const latin1 = (text: string) => [...Buffer.from(text, "latin1")];
    // Debian's make NEWS: ASCII with one Latin-1 name; a changelog with a UTF-8 name and a Latin-1 one.
    expect(decodeText(new Uint8Array(latin1("done by Klaus K\xe4mpf <kk>\r\n")))).toBe(
      "done by Klaus Kämpf <kk>\n",
    );
    const mixed = new Uint8Array([
      ...encode("Sören, "),
      ...latin1("Xos\xe9 V\xe1zquez"),
      ...encode(" and 𝄞"),
    ]);
    expect(decodeText(mixed)).toBe("Sören, Xosé Vázquez and 𝄞");
    // Windows-1252's punctuation in 0x80-0x9f, and three such bytes in a row ("Größe" has two).
    expect(decodeText(new Uint8Array([0x93, 0x61, 0x94, 0x20, 0x80, 0x35, 0x85]))).toBe("\u201ca\u201d €5…");
    expect(decodeText(new Uint8Array([0x61, 0xc6, 0xd8, 0xc5, 0x62]))).toBe("aÆØÅb");
    // A UTF-8 BOM before such text is still dropped.
    expect(decodeText(new Uint8Array([0xef, 0xbb, 0xbf, ...latin1("caf\xe9")]))).toBe("café");
  });

  it("skips more than three non-UTF-8 bytes in a row (another legacy encoding), naming line and offset", () => {
    // "Привет" in KOI8-R: six such bytes in a row, which Windows-1252 would turn into "ðÒÉ×ÅÔ".
    const koi8 = [0xf0, 0xd2, 0xc9, 0xd7, 0xc5, 0xd4];
    const error = skipOf(() => decodeText(new Uint8Array([...encode("one\ntwo\nthr"), ...koi8]), "koi8.txt"));
    expect(error.code).toBe("invalid_utf8");
    expect(error.message).toContain("koi8.txt: invalid UTF-8 at line 3, byte offset 11 (bytes f0 d2 c9 d7)");
    expect(error.message).toContain("iconv");
    // The run is counted from its first byte, after a stretch read as Windows-1252 earlier in the file.
    const late = new Uint8Array([0xe9, ...encode(" ok\n"), 0x61, 0xe9, 0xe9, 0xe9, 0xe9]);
    expect(skipOf(() => decodeText(late)).message).toContain("line 2, byte offset 6 ");
    expect(decodeText(new Uint8Array([0x61, 0xe9, 0xe9, 0xe9]))).toBe("aééé");
  });

  it("counts overlong, surrogate and truncated sequences byte by byte", () => {
    const cases: Array<[number[], number]> = [
      [[0x61, 0xc0, 0xaf, 0xc0, 0xaf], 1], // overlong "/", twice
      [[0x61, 0x62, 0xed, 0xa0, 0x80, 0x80], 2], // a UTF-16 surrogate encoded in UTF-8, then a stray continuation
      [[0x61, 0xe2, 0x82, 0xff, 0xfe], 1], // a truncated euro sign, then two bytes UTF-8 never uses
      [[0xf4, 0x90, 0x80, 0x80], 0], // above U+10FFFF
    ];
    for (const [bytes, offset] of cases) {
      expect(skipOf(() => decodeText(new Uint8Array(bytes))).message).toContain(`byte offset ${offset} `);
      // One byte fewer is a run of three: read, not skipped.
      expect(typeof decodeText(new Uint8Array(bytes.slice(0, -1)))).toBe("string");
    }
  });

  it("rejects a UTF-16 file with an odd number of bytes", () => {
    expect(skipOf(() => decodeText(new Uint8Array([0xff, 0xfe, 0x41, 0x00, 0x42]))).code).toBe(
      "invalid_utf8",
    );
  });
});

describe("plainTextReader", () => {
  it("reads paragraphs split on blank lines, with line ranges", async () => {
    const bytes = encode("Title line\n\nFirst para\ncontinues.\n   \n\nSecond.\n");
    const result = await plainTextReader.read({ bytes, path: "a.txt", limits: DEFAULT_READER_LIMITS });
    expect(result.blocks).toEqual([
      { kind: "paragraph", text: "Title line", lines: { start: 1, end: 1 } },
      { kind: "paragraph", text: "First para\ncontinues.", lines: { start: 3, end: 4 } },
      { kind: "paragraph", text: "Second.", lines: { start: 7, end: 7 } },
    ]);
  });

  it("reports a whitespace-only file as empty", async () => {
    await expect(
      Promise.resolve().then(() =>
        plainTextReader.read({ bytes: encode(" \n\n"), path: "e.txt", limits: DEFAULT_READER_LIMITS }),
      ),
    ).rejects.toMatchObject({ code: "empty" });
  });

  it("skips a PostScript program (its %!PS first line, a BOM before it or not), saying how to convert it; a text that only mentions %!PS is read", async () => {
    const postscript =
      "%!PS-Adobe-3.0\n%%Title: manual\n/Times-Roman findfont 12 scalefont setfont\n72 720 moveto (Valgrind) show\nshowpage\n";
    for (const bytes of [encode(postscript), encode(`\uFEFF${postscript}`), encode("%!PS\n(x) show\n")]) {
      await expect(
        Promise.resolve().then(() =>
          plainTextReader.read({ bytes, path: "manual.ps", limits: DEFAULT_READER_LIMITS }),
        ),
      ).rejects.toMatchObject({
        code: "unsupported",
        message: expect.stringMatching(/^manual\.ps: PostScript .*ps2pdf/),
      });
    }
    const mention = await plainTextReader.read({
      bytes: encode("PostScript files start with %!PS-Adobe-3.0, then comments.\n"),
      path: "notes.txt",
      limits: DEFAULT_READER_LIMITS,
    });
    expect(mention.blocks.map((block) => block.text)).toEqual([
      "PostScript files start with %!PS-Adobe-3.0, then comments.",
    ]);
  });

  it("skips a Devhelp book index (its <book> root and <chapters>), and reads other XML as text", async () => {
    const devhelp = `<?xml version="1.0" encoding="iso-8859-1"?>
<book title="Python 3.11 Documentation" name="Python 3.11" version="3.11" link="index.html">
<chapters>
<sub name="os" link="library/os.html"/>
</chapters>
<functions><function name="os.waitid" link="library/os.html#os.waitid"/></functions>
</book>`;
    const v2 = `<?xml version="1.0"?>\n<!-- generated -->\n<book xmlns="http://www.devhelp.net/book" title="GLib" link="index.html" name="glib" version="2">\n  <chapters>\n  </chapters>\n</book>`;
    for (const text of [devhelp, v2]) {
      await expect(
        Promise.resolve().then(() =>
          plainTextReader.read({
            bytes: encode(text),
            path: "python3.11.devhelp",
            limits: DEFAULT_READER_LIMITS,
          }),
        ),
      ).rejects.toMatchObject({ code: "unsupported", message: expect.stringContaining("a Devhelp index") });
    }
    const other = await plainTextReader.read({
      bytes: encode(
        '<?xml version="1.0"?>\n<book><title>A DocBook book</title><chapter>Text.</chapter></book>\n',
      ),
      path: "book.xml",
      limits: DEFAULT_READER_LIMITS,
    });
    expect(other.blocks).toHaveLength(1);
  });

  it("offsets line numbers for text that starts inside a larger file", () => {
    expect(paragraphBlocks("a\n\nb", 10).map((block) => block.lines)).toEqual([
      { start: 10, end: 10 },
      { start: 12, end: 12 },
    ]);
  });
});

describe("plainTextReader with UTF-16", () => {
  it("reads a UTF-16 LE file with its BOM as paragraphs", async () => {
    const bytes = new Uint8Array([0xff, 0xfe, ...Buffer.from("Überschrift\r\n\r\nText.", "utf16le")]);
    const result = await plainTextReader.read({ bytes, path: "windows.txt", limits: DEFAULT_READER_LIMITS });
    expect(result.blocks).toEqual([
      { kind: "paragraph", text: "Überschrift", lines: { start: 1, end: 1 } },
      { kind: "paragraph", text: "Text.", lines: { start: 3, end: 3 } },
    ]);
  });
});

describe("paragraphBlocksInSlices", () => {
  it("gives a large text's paragraphs, with their lines, exactly as one pass does", async () => {
    const paragraph = (index: number) =>
      `Paragraph ${index} line one.\n  indented line two of ${index}.\n${index % 7 === 0 ? "\n\n" : ""}`;
    const text = Array.from({ length: 30_000 }, (_, index) => paragraph(index)).join("\n");
    expect(text.length).toBeGreaterThan(2 * 512 * 1024);
    const sliced = await paragraphBlocksInSlices(text);
    expect(sliced).toEqual(paragraphBlocks(text));
  });
});
