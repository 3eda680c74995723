// The little of the WebAssembly API the store's modules use (the TypeScript lib this package compiles with has no
// DOM types), and each module compiled once per process.

/** A module's memory, as its exports give it. */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}

const compiled = new Map<string, object | null>();
const shared = new Map<string, unknown>();

/**
 * The exports of a new instance of the module whose bytes are `base64` (compiled on first use, then kept), or
 * `undefined` where WebAssembly does not run (node --jitless) or the bytes do not compile. With `shared`, one
 * instance serves every call of the process (for a module whose callers copy what they need out of its memory
 * before they return: a new instance costs a memory of its own, and some callers call it per postings block).
 */
export function wasmExports<Exports>(base64: string, { shared: share = false } = {}): Exports | undefined {
  if (share && shared.has(base64)) return shared.get(base64) as Exports;
  const api = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (!api) return undefined;
  let module = compiled.get(base64);
  if (module === undefined) {
    try {
      module = new api.Module(Buffer.from(base64, "base64"));
    } catch {
      module = null;
    }
    compiled.set(base64, module);
  }
  const exports = module ? (new api.Instance(module, {}).exports as Exports) : undefined;
  if (share && exports) shared.set(base64, exports);
  return exports;
}
