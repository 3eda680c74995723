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

/**
 * The block of these postings (keys ascending); with `after`, the bytes to append to a block whose last key it is
 * (the first gap is from it).
 */
export function encodePostings(
  { keys, frequencies, lengths }: PostingsList,
  from = 0,
  to = keys.length,
  after = 0,
): Buffer {
  const writer = new VarintWriter();
  let previous = after;
  for (let index = from; index < to; index++) {
    const key = keys[index] as number;
    writer.write(key - previous);
    writer.write(frequencies[index] as number);
    writer.write(lengths[index] as number);
    previous = key;
  }
  return writer.bytes();
}

/** Postings decoded into typed arrays (a term's blocks, one after another). */
export interface PostingsArrays {
  keys: Int32Array;
  frequencies: Int32Array;
  lengths: Int32Array;
}

/**
 * Decodes the `count` postings of `block` into `into` from index `at`, in one pass and with no call per value: at
 * 10^6 chunks a common term has 3 × 10^5 postings, read on every query that names it. Returns why the bytes are not
 * such a block (they hold more postings, fewer, end inside one, or a key past 2^31 − 1), or undefined when they are.
 */
export function decodePostingsInto(
  block: Uint8Array,
  count: number,
  into: PostingsArrays,
  at: number,
): "more postings than its count" | "not readable" | undefined {
  const { keys, frequencies, lengths } = into;
  const end = at + count;
  let next = at;
  let key = 0;
  let field = 0;
  let value = 0;
  let scale = 1;
  for (let index = 0; index < block.length; index++) {
    const byte = block[index] as number;
    value += (byte & 0x7f) * scale;
    if (byte >= 0x80) {
      scale *= 0x80;
      if (scale > 2 ** 28) return "not readable";
      continue;
    }
    if (next === end) return "more postings than its count";
    if (field === 0) {
      key += value;
      if (key > 0x7fffffff) return "not readable";
      keys[next] = key;
    } else if (field === 1) frequencies[next] = value;
    else lengths[next++] = value;
    field = field === 2 ? 0 : field + 1;
    value = 0;
    scale = 1;
  }
  return next === end && field === 0 && scale === 1 ? undefined : "not readable";
}

/** Appends the postings of `block` to `into`; false when the bytes are not a block (a damaged row). */
export function decodePostings(block: Uint8Array, into: PostingsList): boolean {
  // A posting is three varints, each ending on a byte below 0x80.
  let ends = 0;
  for (const byte of block) if (byte < 0x80) ends++;
  if (ends % 3 !== 0) return false;
  const count = ends / 3;
  const arrays = {
    keys: new Int32Array(count),
    frequencies: new Int32Array(count),
    lengths: new Int32Array(count),
  };
  if (decodePostingsInto(block, count, arrays, 0) !== undefined) return false;
  for (let index = 0; index < count; index++) {
    into.keys.push(arrays.keys[index] as number);
    into.frequencies.push(arrays.frequencies[index] as number);
    into.lengths.push(arrays.lengths[index] as number);
  }
  return true;
}

/** A block after {@link dropFromBlock}: its bytes, how many postings it holds, and its first and last keys. */
export interface ChangedBlock {
  bytes: Buffer;
  count: number;
  /** Undefined when no posting is left. */
  firstKey: number | undefined;
  lastKey: number | undefined;
  /** The last key the block held before (taken out or not). */
  storedLastKey: number;
  /** How many postings were taken out. */
  dropped: number;
}

/**
 * The block without the postings of the keys in `gone` (ascending; keys it does not hold are passed over), in one
 * pass over its bytes with no posting decoded into an array: the bytes between taken postings are copied as they
 * are, and only the gap of a posting after a taken one is written anew (its key's distance from the last one kept).
 * A common term's block holds ~1,000 postings and an edited file's chunks are a few of them. Undefined when the bytes
 * are not a block.
 */
export function dropFromBlock(block: Uint8Array, gone: Int32Array): ChangedBlock | undefined {
  // A gap written anew spans at most the bytes of its own old gap and of the posting taken before it.
  const out = new Uint8Array(block.length);
  let length = 0;
  let copyFrom = 0;
  let read = 0;
  let key = 0;
  let pendingGap = 0;
  let next = 0;
  let count = 0;
  let dropped = 0;
  let firstKey: number | undefined;
  let lastKey: number | undefined;
  while (read < block.length) {
    const start = read;
    let gap = 0;
    let scale = 1;
    let byte: number;
    do {
      if (read === block.length || scale > 2 ** 28) return undefined;
      byte = block[read++] as number;
      gap += (byte & 0x7f) * scale;
      scale *= 0x80;
    } while (byte >= 0x80);
    const gapEnd = read;
    for (let field = 0; field < 2; field++) {
      do {
        if (read === block.length) return undefined;
        byte = block[read++] as number;
      } while (byte >= 0x80);
    }
    key += gap;
    if (key > 0x7fffffff) return undefined;
    while (next < gone.length && (gone[next] as number) < key) next++;
    if (next < gone.length && gone[next] === key) {
      out.set(block.subarray(copyFrom, start), length);
      length += start - copyFrom;
      copyFrom = read;
      pendingGap += gap;
      dropped++;
      continue;
    }
    if (pendingGap > 0) {
      length = writeVarint(out, length, pendingGap + gap);
      copyFrom = gapEnd;
      pendingGap = 0;
    }
    firstKey ??= key;
    lastKey = key;
    count++;
  }
  out.set(block.subarray(copyFrom), length);
  length += block.length - copyFrom;
  return { bytes: Buffer.from(out.buffer, 0, length), count, firstKey, lastKey, storedLastKey: key, dropped };
}

/**
 * The last key of a block of `count` postings, or undefined when the bytes are not such a block: decoded whole
 * (a block an edit appends to holds fewer than `BLOCK_POSTINGS`).
 */
export function lastKeyOfBlock(block: Uint8Array, count: number): number | undefined {
  if (!(count >= 1)) return undefined;
  const into = {
    keys: new Int32Array(count),
    frequencies: new Int32Array(count),
    lengths: new Int32Array(count),
  };
  return decodePostingsInto(block, count, into, 0) === undefined ? into.keys[count - 1] : undefined;
}

/** Writes `value` as a varint into `into` at `at`; returns the index after it. */
function writeVarint(into: Uint8Array, at: number, value: number): number {
  let rest = value;
  let next = at;
  while (rest >= 0x80) {
    into[next++] = (rest % 0x80) | 0x80;
    rest = Math.floor(rest / 0x80);
  }
  into[next++] = rest;
  return next;
}
