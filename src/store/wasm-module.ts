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

/**
 * The exports of a new instance of the module whose bytes are `base64` (compiled on first use, then kept), or
 * `undefined` where WebAssembly does not run (node --jitless) or the bytes do not compile.
 */
export function wasmExports<Exports>(base64: string): Exports | undefined {
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
  return module ? (new api.Instance(module, {}).exports as Exports) : undefined;
}
