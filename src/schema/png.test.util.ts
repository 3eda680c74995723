import { deflateSync } from "node:zlib";

function crc32(bytes: Uint8Array): number {
  let crc = -1;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit += 1) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return (crc ^ -1) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "ascii");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * A valid grayscale PNG of the given size (all black; deflate keeps it small). Large sizes are cheap in
 * tests that only read the header: pass `headerOnly` to skip the pixel data.
 */
export function pngOfSize(width: number, height: number, { headerOnly = false } = {}): Uint8Array {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // grayscale
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const parts = [signature, chunk("IHDR", ihdr)];
  if (!headerOnly) parts.push(chunk("IDAT", deflateSync(Buffer.alloc((width + 1) * height))));
  parts.push(chunk("IEND", new Uint8Array()));
  return new Uint8Array(Buffer.concat(parts));
}
