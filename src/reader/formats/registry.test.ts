import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../../errors/invalid-argument-error.js";
import { decodeText, paragraphBlocks } from "./plain-text.js";
import { BUILT_IN_READERS, createReaderRegistry, READERS_VERSION } from "./registry.js";
import type { DocumentReader } from "./types.js";

const reader = (format: string): DocumentReader => ({
  format,
  extensions: [],
  read: () => ({ blocks: [{ kind: "paragraph", text: format }] }),
});

describe("createReaderRegistry", () => {
  it("picks the built-in reader by ending, case-insensitively, and none for an unknown ending", () => {
    const registry = createReaderRegistry();
    expect(registry.readerFor("Guide.MD")?.reader.format).toBe("markdown");
    expect(registry.readerFor("notes.txt")?.id).toBe(`text@${READERS_VERSION}`);
    expect(registry.readerFor("data.xyz")).toBeUndefined();
    // A file named like an ending is not that format.
    expect(registry.readerFor(".md")).toBeUndefined();
    expect(registry.fallback.reader.format).toBe("text");
  });

  it("adds and replaces readers by ending; the longest matching ending wins", () => {
    const registry = createReaderRegistry({
      readers: {
        log: reader("log"),
        ".MD": reader("mine"),
        ".gz": reader("gzip"),
        ".md.gz": reader("md-gzip"),
      },
    });
    expect(registry.readerFor("a.log")?.id).toBe("log@custom");
    expect(registry.readerFor("a.md")?.reader.format).toBe("mine");
    expect(registry.readerFor("README.md.gz")?.reader.format).toBe("md-gzip");
    expect(registry.readerFor("changelog.Debian.gz")?.reader.format).toBe("gzip");
    expect(registry.readerFor("a.txt")?.reader.format).toBe("text");
  });

  it("takes the longest ending a name has after at least one character, for any name", () => {
    const registry = createReaderRegistry({ readers: { ".tar.md": BUILT_IN_READERS[0] as DocumentReader } });
    const endings = registry.endings.map((entry) => entry.ending);
    /** The rule: of the endings the name ends with, and is longer than, the longest. */
    const longest = (name: string) =>
      endings
        .filter((ending) => name.toLowerCase().endsWith(ending) && name.length > ending.length)
        .sort((left, right) => right.length - left.length)[0];
    const part = fc.constantFrom(...endings, ".", "..", "a", "README", ".TAR", "x.y", "");
    fc.assert(
      fc.property(fc.array(part, { maxLength: 4 }), (parts) => {
        const name = parts.join("");
        const expected = longest(name);
        const chosen = registry.readerFor(name);
        expect(chosen?.id, name).toBe(
          expected === undefined ? undefined : registry.readerFor(`x${expected}`)?.id,
        );
      }),
      { numRuns: 3000 },
    );
  });

  it("rejects a malformed reader or ending with a typed error", () => {
    const bad = (readers: unknown) => {
      try {
        createReaderRegistry({ readers: readers as never });
      } catch (error) {
        expect(InvalidArgumentError.isInstance(error)).toBe(true);
        return (error as Error).message;
      }
      throw new Error("no error");
    };
    expect(bad({ ".log": { format: "log" } })).toMatch(/Expected `readers\[".log"\]` to be a DocumentReader/);
    expect(bad({ "a b": reader("x") })).toMatch(/keyed by a file ending/);
    expect(bad([reader("x")])).toMatch(/Expected `readers` to be an object of readers by file ending/);
  });

  it("keeps READERS_VERSION with the built-in table: change one, change the other", () => {
    // When this fails, a reader was added or changed: bump READERS_VERSION (so cached indexes read those files
    // again) and update both lines here.
    const table = BUILT_IN_READERS.map((entry) => `${entry.format}:${entry.extensions.length}`);
    expect({ version: READERS_VERSION, table }).toEqual({
      version: 21,
      table: [
        "code:97",
        "text:2",
        "markdown:2",
        "rst:2",
        "mdx:1",
        "html:3",
        "pdf:1",
        "docx:1",
        "notebook:1",
        "csv:2",
        "man:15",
        "info:1",
        "pptx:3",
        "epub:1",
        "email:3",
        "xlsx:3",
        "opendocument:3",
      ],
    });
  });
});

describe("the built-in text reader", () => {
  it("makes one paragraph block per blank-line-separated paragraph, with its lines", () => {
    expect(paragraphBlocks("# Title\nintro\n\n\n  indented\n \t\nlast  \n")).toEqual([
      { kind: "paragraph", text: "# Title\nintro", lines: { start: 1, end: 2 } },
      { kind: "paragraph", text: "  indented", lines: { start: 5, end: 5 } },
      { kind: "paragraph", text: "last", lines: { start: 7, end: 7 } },
    ]);
  });

  it("decodes UTF-8 (BOM dropped), UTF-16 with its BOM and Latin-1 bytes; refuses NUL bytes and other encodings by code", () => {
    expect(decodeText(new Uint8Array([0xef, 0xbb, 0xbf, 0x61, 0x0d, 0x0a, 0x62]))).toBe("a\nb");
    expect(decodeText(new Uint8Array([0xff, 0xfe, 0x68, 0, 0x69, 0]))).toBe("hi");
    expect(decodeText(new Uint8Array([0xfe, 0xff, 0, 0x68, 0, 0x69]))).toBe("hi");
    expect(() => decodeText(new Uint8Array([0x61, 0, 0x62]))).toThrow(
      expect.objectContaining({ code: "binary" }),
    );
    expect(decodeText(new Uint8Array([0x63, 0x61, 0x66, 0xe9]))).toBe("café");
    // "Привет" in KOI8-R.
    expect(() => decodeText(new Uint8Array([0xf0, 0xd2, 0xc9, 0xd7, 0xc5, 0xd4]))).toThrow(
      expect.objectContaining({ code: "invalid_utf8" }),
    );
  });
});
