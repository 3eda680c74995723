/**
 * The bytes of a postings block: unsigned LEB128 varints (7 bits a byte, low first).
 * A block holds, per posting in ascending key order, the key's gap from the previous one (the first from 0), the
 * term's frequency in the chunk and the chunk's length: about 4 bytes a posting where a row took about 30.
 */

/** One decoded block (or several appended): parallel arrays, keys ascending. */
export interface PostingsList {
  keys: number[];
  frequencies: number[];
  lengths: number[];
}

/** Grows as varints are written; `bytes()` is the written part. */
class VarintWriter {
  #buffer = new Uint8Array(256);
  #length = 0;

  write(value: number): void {
    if (this.#length + 10 > this.#buffer.length) {
      const grown = new Uint8Array(this.#buffer.length * 2);
      grown.set(this.#buffer);
      this.#buffer = grown;
    }
    let rest = value;
    while (rest >= 0x80) {
      this.#buffer[this.#length++] = (rest % 0x80) | 0x80;
      rest = Math.floor(rest / 0x80);
    }
    this.#buffer[this.#length++] = rest;
  }

  bytes(): Buffer {
    return Buffer.from(this.#buffer.buffer, 0, this.#length);
  }
}

/** Calls `each` with every varint of `bytes` in order; false when the bytes end inside a varint. */
function readVarints(bytes: Uint8Array, each: (value: number) => void): boolean {
  let value = 0;
  let scale = 1;
  for (let index = 0; index < bytes.length; index++) {
    const byte = bytes[index] as number;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) {
      each(value);
      value = 0;
      scale = 1;
    } else {
      scale *= 0x80;
      if (scale > 2 ** 49) return false;
    }
  }
  return scale === 1;
}

/** The block of these postings (keys ascending). */
export function encodePostings(
  { keys, frequencies, lengths }: PostingsList,
  from = 0,
  to = keys.length,
): Buffer {
  const writer = new VarintWriter();
  let previous = 0;
  for (let index = from; index < to; index++) {
    const key = keys[index] as number;
    writer.write(key - previous);
    writer.write(frequencies[index] as number);
    writer.write(lengths[index] as number);
    previous = key;
  }
  return writer.bytes();
}

/** Appends the postings of `block` to `into`; false when the bytes are not a block (a damaged row). */
export function decodePostings(block: Uint8Array, into: PostingsList): boolean {
  let field = 0;
  let key = 0;
  const read = readVarints(block, (value) => {
    if (field === 0) {
      key += value;
      into.keys.push(key);
    } else if (field === 1) into.frequencies.push(value);
    else into.lengths.push(value);
    field = (field + 1) % 3;
  });
  return read && field === 0;
}
