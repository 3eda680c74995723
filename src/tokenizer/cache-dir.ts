let dir: string | undefined;
let codeCache = true;

/**
 * Keeps the built-in tokenizers' caches in `folder`: the token counts of the pieces they counted (see
 * piece-count-file) and, unless `compiledCode` is false, V8's compiled code of their rank tables (see
 * loadEncodingWithCodeCache). `undefined`, the default, keeps nothing: every piece is counted and every table
 * compiled from source on every run. Set by the CLI, once per process, before any count: a library never writes
 * to disk unasked.
 */
export function useTokenizerCache(folder: string | undefined, { compiledCode = true } = {}): void {
  dir = folder;
  codeCache = compiledCode;
}

/** The folder given to {@link useTokenizerCache}, if any. */
export function tokenizerCacheDir(): string | undefined {
  return dir;
}

/** The folder for the rank tables' compiled code: {@link tokenizerCacheDir} unless that was turned off. */
export function rankTableCodeCacheDir(): string | undefined {
  return codeCache ? dir : undefined;
}
