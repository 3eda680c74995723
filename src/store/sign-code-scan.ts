// The first pass of a dense search over sign codes (sign-codes.ts): the Hamming distance of every code to the
// query's code, counted by distance, then the positions of the nearest. In WebAssembly (sign-code-scan.wat is its
// source, these are its bytes): a process's first dense query runs it before V8 has optimized any JavaScript for
// it, and over 10^6 codes the JavaScript loops took ~50 ms cold, the WebAssembly ~12 ms with the copies in. Where
// WebAssembly is missing (node --jitless) the JavaScript loops run; the tests hold the two equal.

import { type WasmMemory, wasmExports } from "./wasm-module.js";

// The module's bytes, base64: written by `node scripts/assemble-wasm.mjs` from sign-code-scan.wat.
// assemble-wasm:begin
const MODULE_BASE64 =
  "AGFzbQEAAAABEwJgBn9/f39/fwBgBX9/f39/AX8DBAMAAAEFAwEAAQcvBAZtZW1vcnkCAAtkaXN0YW5jZXM2NAAAC2Rpc3RhbmNlczMyAAEGZ2F0aGVyAAIK8QIDhgEBBX8gBCABQQF0aiEGAkADQCAEIAZPDQFBACEJQQAhCCACQQJ0IQcCQANAIAggB08NASAJIAAgCGopAwAgAyAIaikDAIV7p2ohCSAIQQhqIQgMAAsLIAQgCTsBACAFIAlBAnRqIQogCiAKKAIAQQFqNgIAIAAgB2ohACAEQQJqIQQMAAsLC4UBAQV/IAQgAUEBdGohBgJAA0AgBCAGTw0BQQAhCUEAIQggAkECdCEHAkADQCAIIAdPDQEgCSAAIAhqKAIAIAMgCGooAgBzaWohCSAIQQRqIQgMAAsLIAQgCTsBACAFIAlBAnRqIQogCiAKKAIAQQFqNgIAIAAgB2ohACAEQQJqIQQMAAsLC2ABA38CQANAIAUgAU8NASAAIAVBAXRqLwEAIQYgBiACSSAGIAJGIANBAEpxcgRAIAYgAkYEQCADQQFrIQMLIAQgB0ECdGogBTYCACAHQQFqIQcLIAVBAWohBQwACwsgBws=";
// assemble-wasm:end

/** The base64 of the module's bytes (for the test that they are the .wat's). */
export const SIGN_CODE_SCAN_WASM = MODULE_BASE64;

/** The Hamming pass over pages of codes for one query, and the nearest positions. */
export interface CodeScan {
  /** Every position's distance (`page` writes them): positions without a code may be set to any value. */
  readonly distances: Uint16Array;
  /** Writes the distances of the codes of page `index` (`keys` codes of `words` words) to the query's code. */
  page(codes: Uint32Array, index: number): void;
  /** How many positions were scanned at each distance 0 … `words · 32`. */
  counts(): Uint32Array;
  /** The positions, ascending, whose distance is below `limit`, and the first `atLimit` equal to it. */
  nearest(limit: number, atLimit: number): Int32Array;
}

/**
 * The scan of `pages` pages of `keys` codes of `words` 32-bit words each, against `query` (a code of as many
 * words): in WebAssembly where it runs, else in JavaScript (`javascript: true` asks for that one).
 */
export function codeScan(
  query: Uint32Array,
  {
    words,
    keys,
    pages,
    javascript = false,
  }: { words: number; keys: number; pages: number; javascript?: boolean },
): CodeScan {
  return (
    (javascript ? undefined : wasmCodeScan(query, words, keys, pages)) ??
    jsCodeScan(query, words, keys, pages)
  );
}

type Distances = (
  codes: number,
  n: number,
  words: number,
  query: number,
  distances: number,
  counts: number,
) => void;
interface Exports {
  memory: WasmMemory;
  distances64: Distances;
  distances32: Distances;
  gather(distances: number, n: number, limit: number, atLimit: number, out: number): number;
}

function wasmCodeScan(query: Uint32Array, words: number, keys: number, pages: number): CodeScan | undefined {
  const exports = wasmExports<Exports>(MODULE_BASE64);
  if (!exports) return undefined;
  // Layout, each part 8-byte aligned: the query's code, the counts (one per distance), every position's distance,
  // one page's codes, the nearest positions.
  const align = (bytes: number) => Math.ceil(bytes / 8) * 8;
  const slots = pages * keys;
  const countsLength = words * 32 + 1;
  const queryAt = 0;
  const countsAt = align(words * 4);
  const distancesAt = countsAt + align(countsLength * 4);
  const codesAt = distancesAt + align(slots * 2);
  const nearestAt = codesAt + align(keys * words * 4);
  const end = nearestAt + slots * 4;
  const memory = exports.memory;
  if (end > memory.buffer.byteLength) memory.grow(Math.ceil((end - memory.buffer.byteLength) / 65536));
  const heap = memory.buffer;
  new Uint32Array(heap, queryAt, words).set(query.subarray(0, words));
  const codesView = new Uint32Array(heap, codesAt, keys * words);
  const scan = words % 2 === 0 ? exports.distances64 : exports.distances32;
  return {
    distances: new Uint16Array(heap, distancesAt, slots),
    page(codes, index) {
      checkPage(codes, index, words, keys, pages);
      codesView.set(codes.subarray(0, keys * words));
      scan(codesAt, keys, words, queryAt, distancesAt + index * keys * 2, countsAt);
    },
    counts: () => new Uint32Array(heap, countsAt, countsLength).slice(),
    nearest(limit, atLimit) {
      const found = exports.gather(distancesAt, slots, limit, atLimit, nearestAt);
      return new Int32Array(heap, nearestAt, found).slice();
    },
  };
}

function jsCodeScan(query: Uint32Array, words: number, keys: number, pages: number): CodeScan {
  const distances = new Uint16Array(pages * keys);
  const counts = new Uint32Array(words * 32 + 1);
  return {
    distances,
    page(codes, index) {
      checkPage(codes, index, words, keys, pages);
      for (let slot = 0, offset = 0, at = index * keys; slot < keys; slot++, offset += words, at++) {
        let distance = 0;
        for (let word = 0; word < words; word++) {
          let bits = (codes[offset + word] as number) ^ (query[word] as number);
          bits -= (bits >>> 1) & 0x55555555;
          bits = (bits & 0x33333333) + ((bits >>> 2) & 0x33333333);
          distance += Math.imul((bits + (bits >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
        }
        distances[at] = distance;
        counts[distance] = (counts[distance] as number) + 1;
      }
    },
    counts: () => counts.slice(),
    nearest(limit, atLimit) {
      const found: number[] = [];
      let left = atLimit;
      for (let at = 0; at < distances.length; at++) {
        const distance = distances[at] as number;
        if (distance < limit || (distance === limit && left-- > 0)) found.push(at);
      }
      return Int32Array.from(found);
    },
  };
}

function checkPage(codes: Uint32Array, index: number, words: number, keys: number, pages: number): void {
  if (!Number.isInteger(index) || index < 0 || index >= pages || codes.length < keys * words)
    throw new RangeError(
      `page ${index} of ${codes.length} words, for a scan of ${pages} pages of ${keys} codes of ${words} words`,
    );
}
