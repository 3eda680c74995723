import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { readImageBytes, readImageFileBlock, sniffImageType } from "./image-bytes.js";
import { pngOfSize } from "./png.test.util.js";

const dir = mkdtempSync(join(tmpdir(), "ragsynth-image-bytes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const png = pngOfSize(4, 4);
writeFileSync(join(dir, "ok.png"), png);
writeFileSync(join(dir, "passwd.png"), "root:x:0:0:root:/root:/bin/bash\n");
writeFileSync(join(dir, "huge.png"), png);
truncateSync(join(dir, "huge.png"), 700 * 1024 * 1024); // sparse: no disk used
mkdirSync(join(dir, "folder.png"));
symlinkSync(join(dir, "ok.png"), join(dir, "link.png"));

describe("sniffImageType", () => {
  it("tells PNG, JPEG, GIF and WebP by their first bytes, and nothing else", () => {
    expect(sniffImageType(png)).toBe("image/png");
    expect(sniffImageType(Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]))).toBe("image/jpeg");
    expect(sniffImageType(Buffer.from("GIF89a\x01\x00\x01\x00", "latin1"))).toBe("image/gif");
    expect(sniffImageType(Buffer.from("RIFF\x24\x00\x00\x00WEBPVP8 ", "latin1"))).toBe("image/webp");
    expect(sniffImageType(Buffer.from("RIFF\x24\x00\x00\x00WAVEfmt ", "latin1"))).toBeUndefined();
    expect(sniffImageType(Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>"))).toBeUndefined();
    expect(sniffImageType(Buffer.from("BM6\x00\x00\x00", "latin1"))).toBeUndefined();
    expect(sniffImageType(new Uint8Array())).toBeUndefined();
  });
});

describe("readImageBytes", () => {
  it("reads an image whole", async () => {
    const result = await readImageBytes({ path: join(dir, "ok.png"), maxBytes: 1000 });
    expect(result).toEqual({ ok: true, bytes: new Uint8Array(png), mediaType: "image/png" });
  });

  it("refuses text named .png, a folder named .png, and a 700 MB file by its size without reading it", async () => {
    expect(await readImageBytes({ path: join(dir, "passwd.png"), maxBytes: 1000 })).toMatchObject({
      ok: false,
      code: "not_an_image",
    });
    expect(await readImageBytes({ path: join(dir, "folder.png"), maxBytes: 1000 })).toMatchObject({
      ok: false,
      code: "not_a_file",
    });
    const before = process.memoryUsage().rss;
    expect(await readImageBytes({ path: join(dir, "huge.png"), maxBytes: 20_000_000 })).toMatchObject({
      ok: false,
      code: "too_large",
      reason: "734003200 bytes is over the 20000000-byte limit per image",
    });
    expect(process.memoryUsage().rss - before).toBeLessThan(100 * 1024 * 1024);
  });

  it("reads no more than the cap from files that report size 0 (/proc)", async () => {
    expect(await readImageBytes({ path: "/proc/self/environ", maxBytes: 8 })).toMatchObject({ ok: false });
  });

  it("with the stat a caller checked, refuses a symlink and a different file", async () => {
    const { statSync } = await import("node:fs");
    const checked = statSync(join(dir, "ok.png"));
    expect(
      await readImageBytes({ path: join(dir, "link.png"), maxBytes: 1000, expected: checked }),
    ).toMatchObject({
      ok: false,
      code: "unreadable",
    });
    expect(
      await readImageBytes({ path: join(dir, "passwd.png"), maxBytes: 1000, expected: checked }),
    ).toMatchObject({ ok: false, reason: "the file changed while it was being checked" });
  });
});

describe("readImageFileBlock", () => {
  it("throws a typed error naming the file and the reason", async () => {
    const error = await readImageFileBlock({ type: "image", path: join(dir, "passwd.png") }).catch(
      (caught: unknown) => caught,
    );
    expect(InvalidArgumentError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/passwd\.png.*not a PNG, JPEG, GIF or WebP image/s);
  });
});
