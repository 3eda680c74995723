// The rarer terms' part of a BM25 query over a store (bm25-top-keys.ts): the union of their postings lists' keys,
// each with the sum of their scores in that chunk. In WebAssembly (bm25-rare-sums.wat is its source, these are its
// bytes): a process's first query runs it before V8 has optimized any JavaScript, and at 1.5 million chunks the
// JavaScript loops (five lists of 71,554 postings merged into 60,117 chunks, each list walked beside them) took
// ~20 ms of a ~55 ms query cold. Where WebAssembly is missing (node --jitless) the caller's JavaScript runs; the
// tests hold the two equal, bit for bit.

import type { TermPostings } from "./index-store.js";
import { type WasmMemory, wasmExports } from "./wasm-module.js";

// The module's bytes, base64: written by `node scripts/assemble-wasm.mjs` from bm25-rare-sums.wat.
// assemble-wasm:begin
const MODULE_BASE64 =
  "AGFzbQEAAAABIQNgCX9/f398fHx/fwF/YAR/f39/AXxgB39/f3x8fH8BfwMEAwABAgUDAQABBy8EBm1lbW9yeQIACXVuaW9uU3VtcwAACmt0aExhcmdlc3QAAQlzdXJ2aXZvcnMAAgr/BQPmAgIIfwN8A0BBACEQQQAhD0EAIQoCQANAIAogA08NASAAIApBBHRqIQsgAiAKQQJ0aigCACENIA0gCygCDEkEQCALKAIAIA1BAnRqKAIAIQ4gEEUgDiAPSHIEQCAOIQ9BASEQCwsgCkEBaiEKDAALCyAQRQRAIAkPC0QAAAAAAAAAACERQQAhCgJAA0AgCiADTw0BIAAgCkEEdGohCyACIApBAnRqIQwgDCgCACENIA0gCygCDEkEQCALKAIAIA1BAnRqKAIAIA9GBEAgCygCBCANQQJ0aigCALchEiAERAAAAAAAAPA/IAWhIAUgCygCCCANQQJ0aigCALeiIAajoKIhEyARIAEgCkEDdGorAwAgEqIgBEQAAAAAAADwP6CiIBIgE6CjoCERIAwgDUEBajYCAAsLIApBAWohCgwACwsgByAJQQJ0aiAPNgIAIAggCUEDdGogETkDACAJQQFqIQkMAAsgCQvCAgIHfwF8AkADQCAEIAFPDQEgACAEQQN0aisDACELIARBAWohBCALRAAAAAAAAAAAZEUNACAFIAJJBEAgBSEGIAVBAWohBQJAA0AgBkUNASAGQQFrQQF2IQcgAyAHQQN0aisDACALZEUNASADIAZBA3RqIAMgB0EDdGorAwA5AwAgByEGDAALCyADIAZBA3RqIAs5AwAMAQsgCyADKwMAZQ0AQQAhBgJAA0AgBkEBdEEBaiEIIAggAk8NASAIQQFqIQkgCCEKIAkgAkkEQCADIAlBA3RqKwMAIAMgCEEDdGorAwBjBEAgCSEKCwsgAyAKQQN0aisDACALZg0BIAMgBkEDdGogAyAKQQN0aisDADkDACAKIQYMAAsLIAMgBkEDdGogCzkDAAwACwsgBSACRgR8IAMrAwAFRAAAAAAAAAAACwtRAQJ/AkADQCAHIAJPDQEgASAHQQN0aisDACADoCAEoiAFY0UEQCAGIAhBAnRqIAAgB0ECdGooAgA2AgAgCEEBaiEICyAHQQFqIQcMAAsLIAgL";
// assemble-wasm:end

/** The base64 of the module's bytes (for the test that they are the .wat's). */
export const BM25_RARE_SUMS_WASM = MODULE_BASE64;

/**
 * The rarer terms' part of MaxScore's test: the k-th best of their sums (`floor`, 0 when fewer than k chunks), and
 * the chunks, ascending, whose sum plus the common terms' bound is not below it (none when the test cannot prune:
 * no floor, or a chunk only the common terms reach could pass it).
 */
export interface RareSurvivors {
  floor: number;
  survivors: Float64Array;
}

/** What decides which chunks survive: the top k, the common terms' bound, the rounding margin's factor. */
export interface SurvivorTest {
  topK: number;
  bound: number;
  factor: number;
}

interface Exports {
  memory: WasmMemory;
  unionSums(
    lists: number,
    idfs: number,
    cursors: number,
    k: number,
    k1: number,
    b: number,
    average: number,
    outKeys: number,
    outSums: number,
  ): number;
  kthLargest(sums: number, n: number, k: number, heap: number): number;
  survivors(
    keys: number,
    sums: number,
    n: number,
    bound: number,
    factor: number,
    floor: number,
    out: number,
  ): number;
}

/**
 * The union of `lists`' keys (each list ascending, each key once, keys of 0 to 2^31 − 1), each with its sum of
 * `idf × tf × (k1 + 1) / (tf + k1 × (1 − b + b × length / averageLength))` over the lists that hold it (added in list
 * order from 0, as the JavaScript adds them), its `topK`-th best sum as the floor, and the keys kept by
 * `!((sum + bound) × factor < floor)` when the test can prune; `undefined` where WebAssembly does not run.
 */
export function wasmRareSurvivors(
  lists: readonly TermPostings[],
  idfs: readonly number[],
  { k1, b, averageLength }: { k1: number; b: number; averageLength: number },
  { topK, bound, factor }: SurvivorTest,
): RareSurvivors | undefined {
  const k = lists.length;
  let total = 0;
  for (const { keys } of lists) {
    total += keys.length;
    // Keys the module's i32 cannot hold: the JavaScript ranks them.
    if (keys.length > 0 && !((keys[0] as number) >= 0 && (keys[keys.length - 1] as number) <= 0x7fffffff))
      return undefined;
  }
  // Layout, each part 8-byte aligned: the descriptors, the IDFs, the cursors, each list's keys, tfs and lengths,
  // the union's keys and sums, the heap of the top k, the surviving keys.
  const exports = wasmExports<Exports>(MODULE_BASE64, { shared: true });
  if (!exports) return undefined;
  const align = (bytes: number) => Math.ceil(bytes / 8) * 8;
  const listsAt = 0;
  const idfsAt = align(k * 16);
  const cursorsAt = idfsAt + k * 8;
  let at = cursorsAt + align(k * 4);
  const placed: number[] = [];
  for (const list of lists) {
    placed.push(at);
    at += 3 * align(list.keys.length * 4);
  }
  const outKeysAt = at;
  const outSumsAt = outKeysAt + align(total * 4);
  const heapAt = outSumsAt + total * 8;
  const survivorsAt = heapAt + topK * 8;
  const end = survivorsAt + total * 4;
  const memory = exports.memory;
  try {
    if (end > memory.buffer.byteLength) memory.grow(Math.ceil((end - memory.buffer.byteLength) / 65536));
  } catch {
    return undefined; // more than the module's memory can hold: the JavaScript ranks them
  }
  const heap = memory.buffer;
  const descriptors = new Int32Array(heap, listsAt, k * 4);
  for (const [index, list] of lists.entries()) {
    const n = list.keys.length;
    const keysAt = placed[index] as number;
    const tfsAt = keysAt + align(n * 4);
    const lengthsAt = tfsAt + align(n * 4);
    new Int32Array(heap, keysAt, n).set(list.keys);
    new Int32Array(heap, tfsAt, n).set(list.frequencies);
    new Int32Array(heap, lengthsAt, n).set(list.lengths);
    descriptors.set([keysAt, tfsAt, lengthsAt, n], index * 4);
  }
  new Float64Array(heap, idfsAt, k).set(idfs);
  // The instance is the process's (a new one per query costs a memory of its own): its cursors start at 0.
  new Int32Array(heap, cursorsAt, k).fill(0);
  const count = exports.unionSums(listsAt, idfsAt, cursorsAt, k, k1, b, averageLength, outKeysAt, outSumsAt);
  const floor = exports.kthLargest(outSumsAt, count, topK, heapAt);
  if (!(floor > 0) || !(bound * factor < floor)) return { floor, survivors: new Float64Array(0) };
  const kept = exports.survivors(outKeysAt, outSumsAt, count, bound, factor, floor, survivorsAt);
  // Copied by the engine (TypedArray.from would step through an iterator, key by key).
  const survivors = new Float64Array(kept);
  survivors.set(new Int32Array(heap, survivorsAt, kept));
  return { floor, survivors };
}
