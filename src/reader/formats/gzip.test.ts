import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { csvReader } from "./csv.js";
import { createGzipReader } from "./gzip.js";
import { DEFAULT_READER_LIMITS, type DocumentReader, type ReaderLimits } from "./types.js";

const looked: string[] = [];
const gzipReader = createGzipReader((innerPath) => {
  looked.push(innerPath);
  return innerPath.endsWith(".csv") ? csvReader : undefined;
});

const read = (
  bytes: Uint8Array,
  path: string,
  limits: ReaderLimits = DEFAULT_READER_LIMITS,
  reader: DocumentReader = gzipReader,
) => Promise.resolve(reader.read({ bytes, path, limits }));

describe("createGzipReader", () => {
  it("reads README.gz as plain text and says it was compressed", async () => {
    const result = await read(gzipSync("Debian README\n\nSecond paragraph.\n"), "doc/README.gz");
    expect(result.blocks).toEqual([
      { kind: "paragraph", text: "Debian README", lines: { start: 1, end: 1 } },
      { kind: "paragraph", text: "Second paragraph.", lines: { start: 3, end: 3 } },
    ]);
    expect(result.metadata).toEqual({ compression: "gzip", inner_format: "text" });
    expect(looked).toContain("doc/README");
  });

  it("reads by the inner ending, concatenated gzip members included", async () => {
    const bytes = Buffer.concat([gzipSync("name,year\n"), gzipSync("Ada,1815\n")]);
    const result = await read(bytes, "people.csv.gz");
    expect(result.blocks).toEqual([
      { kind: "table_row", text: "name: Ada; year: 1815", lines: { start: 2, end: 2 } },
    ]);
    expect(result.metadata).toMatchObject({ compression: "gzip", inner_format: "csv", row_count: 1 });
  });

  it("skips a gzipped PostScript manual (Debian's valgrind_manual.ps.gz) as its inner reader does", async () => {
    const bytes = gzipSync("%!PS-Adobe-2.0\n%%Creator: dvips\n/TeXDict 300 dict def\n");
    await expect(read(bytes, "doc/valgrind_manual.ps.gz")).rejects.toMatchObject({
      code: "unsupported",
      message: expect.stringContaining("doc/valgrind_manual.ps: PostScript"),
    });
  });

  it("stops a gzip bomb by its ratio, without inflating it", async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(128 * 1024);
    await expect(read(bomb, "bomb.txt.gz")).rejects.toMatchObject({
      code: "too_large",
      message: expect.stringMatching(
        /bomb\.txt\.gz: decompresses to more than \d+ bytes \(over 100x the \d+ compressed/,
      ),
    });
  });

  it("stops output past maxDecompressedBytes even when the ratio is allowed", async () => {
    const limits = {
      ...DEFAULT_READER_LIMITS,
      maxDecompressedBytes: 2 * 1024 * 1024,
      maxCompressionRatio: 1e9,
    };
    await expect(read(gzipSync(Buffer.alloc(8 * 1024 * 1024, 0x61)), "a.gz", limits)).rejects.toMatchObject({
      code: "too_large",
      message: expect.stringContaining("the decompressed size limit"),
    });
  });

  it("calls truncated or non-gzip data corrupt and passes inner skips through", async () => {
    const whole = gzipSync("some text that is long enough to be cut in the middle\n".repeat(20));
    await expect(read(whole.subarray(0, whole.length - 12), "cut.gz")).rejects.toMatchObject({
      code: "corrupt",
    });
    await expect(read(new TextEncoder().encode("plain"), "fake.gz")).rejects.toMatchObject({
      code: "corrupt",
      message: expect.stringContaining("not valid gzip data"),
    });
    await expect(read(gzipSync(Buffer.from([0x7f, 0x45, 0x00, 0x01])), "prog.gz")).rejects.toMatchObject({
      code: "binary",
    });
  });
});
