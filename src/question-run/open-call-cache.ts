import { FileCallCache } from "../batch/file-call-cache.js";

/**
 * Opens a call-cache file the way every command does: entries sealed with the operator's `hmacKey`
 * (`RAGSYNTH_CACHE_HMAC_KEY`) are checked with it, and the lines refused (edited, another key, unreadable) are
 * said once through `warn` before any call is made: those calls are paid again, never replayed.
 */
export async function openCallCacheFile(
  path: string,
  hmacKey: string | undefined,
  warn: (text: string) => void,
): Promise<FileCallCache> {
  const cache = await FileCallCache.open(path, { hmacKey });
  const refused = cache.rejected.checksum + cache.rejected.shape;
  if (refused > 0) {
    warn(
      `ragsynth: warning: ignored ${refused} call-cache ${refused === 1 ? "entry" : "entries"} in ${path} ` +
        `(${cache.rejected.checksum} with a checksum that does not match, ${cache.rejected.shape} unreadable): ` +
        "edited or written by another key; those calls are paid again.\n",
    );
  }
  return cache;
}
