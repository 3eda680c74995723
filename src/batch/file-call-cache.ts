import { appendFile, mkdir, readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { optionsOf } from "../errors/check-options.js";
import { checkString } from "../errors/check-string.js";
import type { CachedCall, CallCacheStore } from "./call-cache.js";
import { type CallCacheRejections, openCachedCall, sealCachedCall } from "./call-cache-seal.js";

/**
 * A call cache in a local JSONL file (one `{ key, text, usage, sum }` per line), for the embedded backend.
 * Lines are appended as calls finish, so a process killed mid-run keeps every call that completed; a torn
 * last line is ignored on the next open. Each line carries a checksum of its key and content (an HMAC with
 * `hmacKey`): a line edited by hand is not replayed, and counted in `rejected`.
 */
export class FileCallCache implements CallCacheStore {
  readonly path: string;
  /** Lines refused on open: a checksum that does not match (edited), or not an entry at all. */
  readonly rejected: CallCacheRejections;
  readonly #entries: Map<string, CachedCall>;
  readonly #hmacKey: string | undefined;

  private constructor(
    path: string,
    entries: Map<string, CachedCall>,
    rejected: CallCacheRejections,
    hmacKey: string | undefined,
  ) {
    this.path = path;
    this.#entries = entries;
    this.rejected = rejected;
    this.#hmacKey = hmacKey;
  }

  /**
   * Opens (or starts) the cache file at `path`.
   * @param options.hmacKey signs and checks entries with HMAC-SHA256 (the CLI reads `RAGSYNTH_CACHE_HMAC_KEY`)
   */
  static async open(path: string, options: { hmacKey?: string | undefined } = {}): Promise<FileCallCache> {
    checkString("path", path);
    const { hmacKey } = optionsOf("options", options, "{ hmacKey? }");
    const entries = new Map<string, CachedCall>();
    const rejected: CallCacheRejections = { checksum: 0, shape: 0 };
    let text = "";
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    const lines = text.split("\n");
    for (const [index, line] of lines.entries()) {
      if (line.trim() === "") continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        // A line torn by a kill mid-write (the last one): that call is simply paid again.
        if (index < lines.length - 1) rejected.shape += 1;
        continue;
      }
      const key = (parsed as { key?: unknown } | null)?.key;
      if (typeof key !== "string") {
        rejected.shape += 1;
        continue;
      }
      const opened = openCachedCall(key, parsed, hmacKey);
      if ("entry" in opened) entries.set(key, opened.entry);
      else rejected[opened.rejected] += 1;
    }
    await mkdir(dirname(path), { recursive: true });
    return new FileCallCache(path, entries, rejected, hmacKey);
  }

  /** Calls stored. */
  get size(): number {
    return this.#entries.size;
  }

  async get(key: string): Promise<CachedCall | undefined> {
    return this.#entries.get(key);
  }

  async set(key: string, entry: CachedCall): Promise<void> {
    this.#entries.set(key, entry);
    await appendFile(this.path, `${JSON.stringify({ key, ...sealCachedCall(key, entry, this.#hmacKey) })}\n`);
  }
}
