import { RagsynthError } from "../errors/ragsynth-error.js";
import { sha256Hex } from "../util/sha256.js";

// Layout: a 64-byte header, then `count × dimensions` little-endian float32 values.
//   0  "RSVEC\0\0\0" magic (8 bytes)    8  format version (u32)    12 count (u32)    16 dimensions (u32)
//   20 reserved (12 bytes)             32 SHA-256 of the values (32 bytes)
const MAGIC = Buffer.from("RSVEC\0\0\0", "latin1");
const VERSION = 1;
const HEADER_BYTES = 64;

/** Vectors as one float32 matrix: row `i` is `data.subarray(i * dimensions, (i + 1) * dimensions)`. */
export interface VectorMatrix {
  count: number;
  dimensions: number;
  data: Float32Array;
}

/** The SHA-256 (hex) of a matrix's values, as stored in its header and in the index's JSON. */
export function matrixChecksum(matrix: VectorMatrix): string {
  return sha256Hex(valueBytes(matrix));
}

/** The bytes of a vectors file: header with count, dimensions and checksum, then the values. */
export function encodeVectorsFile(matrix: VectorMatrix): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(header, 0);
  header.writeUInt32LE(VERSION, 8);
  header.writeUInt32LE(matrix.count, 12);
  header.writeUInt32LE(matrix.dimensions, 16);
  Buffer.from(matrixChecksum(matrix), "hex").copy(header, 32);
  return Buffer.concat([header, valueBytes(matrix)]);
}

/**
 * Reads a vectors file and checks everything before a vector is used: magic, version, size, checksum (the
 * one in the file and the one the index expects), and that every value is a finite number.
 * @throws RagsynthError `index_load` saying what is wrong and how to fix it
 */
export function decodeVectorsFile(
  bytes: Buffer,
  {
    file,
    count,
    dimensions,
    checksum,
  }: { file: string; count: number; dimensions: number; checksum: string },
): VectorMatrix {
  const fail = (what: string) =>
    new RagsynthError({
      code: "index_load",
      message: `The vectors file ${file} ${what}. Delete the index folder (or rebuild: the CLI's --rebuild) to embed the documents again.`,
    });
  if (bytes.length < HEADER_BYTES || !bytes.subarray(0, 8).equals(MAGIC)) {
    throw fail("is not a ragsynth vectors file");
  }
  if (bytes.readUInt32LE(8) !== VERSION)
    throw fail(`has format version ${bytes.readUInt32LE(8)}, expected ${VERSION}`);
  const stored = { count: bytes.readUInt32LE(12), dimensions: bytes.readUInt32LE(16) };
  if (stored.count !== count || stored.dimensions !== dimensions) {
    throw fail(
      `holds ${stored.count} × ${stored.dimensions} vectors, but the index expects ${count} × ${dimensions}`,
    );
  }
  if (bytes.length !== HEADER_BYTES + count * dimensions * 4) {
    throw fail(`has ${bytes.length} bytes, expected ${HEADER_BYTES + count * dimensions * 4} (cut short?)`);
  }
  // A copy aligned for Float32Array; little-endian as written (every platform Node runs on).
  const data = new Float32Array(count * dimensions);
  Buffer.from(data.buffer).set(bytes.subarray(HEADER_BYTES));
  const matrix = { count, dimensions, data };
  const actual = matrixChecksum(matrix);
  if (actual !== bytes.subarray(32, 64).toString("hex") || actual !== checksum) {
    throw fail("does not match its checksum (it was damaged, or belongs to another save)");
  }
  for (let index = 0; index < data.length; index++) {
    if (!Number.isFinite(data[index])) {
      throw fail(
        `has a value that is not a finite number (${data[index]}) in vector ${Math.floor(index / dimensions)}`,
      );
    }
  }
  return matrix;
}

function valueBytes(matrix: VectorMatrix): Buffer {
  return Buffer.from(matrix.data.buffer, matrix.data.byteOffset, matrix.count * matrix.dimensions * 4);
}
