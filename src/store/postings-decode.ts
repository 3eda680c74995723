// A term's postings blocks decoded in WebAssembly (postings-decode.wat is its source, these are its bytes): a
// process's first query decodes its terms' blocks before V8 has optimized the JavaScript decoder, and at 1.5 million
// chunks the five rarer terms of a question (71,554 postings) took ~6 ms of it cold. Where WebAssembly is missing
// (node --jitless) `decodePostingsInto` (postings-codec.ts) decodes them; the tests hold the two equal, on damaged
// bytes too.

import { decodePostingsInto, type PostingsArrays } from "./postings-codec.js";
import { type WasmMemory, wasmExports } from "./wasm-module.js";

// The module's bytes, base64: written by `node scripts/assemble-wasm.mjs` from postings-decode.wat.
// assemble-wasm:begin
const MODULE_BASE64 =
  "AGFzbQEAAAABCwFgBn9/f39/fwF/AwIBAAUDAQABBxMCBm1lbW9yeQIABmRlY29kZQAACuMBAeABAgR/A34CQANAIAYgAU8NASAAIAZqLQAAIQcgBkEBaiEGIAsgB0H/AHGtIAqGfCELIAdBgAFPBEAgCkIHfCEKIApCHFYEQEECDwsMAQsgCCACRgRAQQEPCyAJRQRAIAwgC3whDCAMQv////8HVgRAQQIPCyADIAhBAnRqIAynNgIABSAJQQFGBEAgBCAIQQJ0aiALpzYCAAUgBSAIQQJ0aiALpzYCACAIQQFqIQgLC0EAIAlBAWogCUECRhshCUIAIQtCACEKDAALCyAIIAJGIAlFcSAKUHEEf0EABUECCws=";
// assemble-wasm:end

/** The base64 of the module's bytes (for the test that they are the .wat's). */
export const POSTINGS_DECODE_WASM = MODULE_BASE64;

/** Why a block's bytes are not its postings, as `decodePostingsInto` says it. */
export type BlockDamage = "more postings than its count" | "not readable";

interface Exports {
  memory: WasmMemory;
  decode(block: number, length: number, count: number, keys: number, tfs: number, lengths: number): number;
}

const DAMAGE: readonly (BlockDamage | undefined)[] = [
  undefined,
  "more postings than its count",
  "not readable",
];

/**
 * The postings of `blocks` (each `count` postings in `block`'s bytes), one block after another, in typed arrays;
 * the damage of the first block whose bytes are not its postings; or `undefined` where WebAssembly does not run (or
 * the counts are not whole numbers, or too many for its memory): the caller decodes them then.
 */
export function wasmDecodeBlocks(
  blocks: readonly { count: number; block: Uint8Array }[],
): PostingsArrays | BlockDamage | undefined {
  let total = 0;
  let bytes = 0;
  for (const { count, block } of blocks) {
    if (!(Number.isInteger(count) && count >= 0)) return undefined;
    total += count;
    bytes += block.length;
  }
  const exports = wasmExports<Exports>(MODULE_BASE64, { shared: true });
  if (!exports) return undefined;
  // Layout, each part 8-byte aligned: the blocks' bytes, one after another, then the keys, tfs and lengths.
  const align = (size: number) => Math.ceil(size / 8) * 8;
  const keysAt = align(bytes);
  const tfsAt = keysAt + align(total * 4);
  const lengthsAt = tfsAt + align(total * 4);
  const end = lengthsAt + total * 4;
  const memory = exports.memory;
  try {
    if (end > memory.buffer.byteLength) memory.grow(Math.ceil((end - memory.buffer.byteLength) / 65536));
  } catch {
    return undefined;
  }
  const heap = memory.buffer;
  const bytesView = new Uint8Array(heap, 0, bytes);
  let offset = 0;
  let at = 0;
  for (const { count, block } of blocks) {
    bytesView.set(block, offset);
    const status = exports.decode(
      offset,
      block.length,
      count,
      keysAt + at * 4,
      tfsAt + at * 4,
      lengthsAt + at * 4,
    );
    const damage = DAMAGE[status];
    if (damage !== undefined) return damage;
    offset += block.length;
    at += count;
  }
  return {
    keys: new Int32Array(heap, keysAt, total).slice(),
    frequencies: new Int32Array(heap, tfsAt, total).slice(),
    lengths: new Int32Array(heap, lengthsAt, total).slice(),
  };
}

/**
 * The postings of `blocks`, one block after another, in typed arrays, or the damage of the first block whose bytes
 * are not its postings: in WebAssembly where it runs, else (or with `javascript`) by `decodePostingsInto`.
 */
export function decodeBlocks(
  blocks: readonly { count: number; block: Uint8Array }[],
  { javascript = false }: { javascript?: boolean } = {},
): PostingsArrays | BlockDamage {
  const decoded = javascript ? undefined : wasmDecodeBlocks(blocks);
  if (decoded !== undefined) return decoded;
  let total = 0;
  for (const { count } of blocks) total += count;
  const arrays = {
    keys: new Int32Array(total),
    frequencies: new Int32Array(total),
    lengths: new Int32Array(total),
  };
  let at = 0;
  for (const { count, block } of blocks) {
    const wrong = decodePostingsInto(block, count, arrays, at);
    if (wrong) return wrong;
    at += count;
  }
  return arrays;
}
