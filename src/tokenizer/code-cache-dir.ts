let dir: string | undefined;

/**
 * Keeps V8's compiled code of the built-in tokenizers' rank tables in `folder` (see loadEncodingWithCodeCache);
 * `undefined`, the default, compiles them from source on every load. Set by the CLI, once per process, before
 * any count: a library never writes to disk unasked.
 */
export function useRankTableCodeCache(folder: string | undefined): void {
  dir = folder;
}

/** The folder given to {@link useRankTableCodeCache}, if any. */
export function rankTableCodeCacheDir(): string | undefined {
  return dir;
}
