import { appendFile, mkdir, readFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { CachedCall, CallCacheStore } from "./call-cache.js";

/**
 * A call cache in a local JSONL file (one `{ key, text, usage }` per line), for the embedded backend. Lines
 * are appended as calls finish, so a process killed mid-run keeps every call that completed; a torn last
 * line is ignored on the next open.
 */
export class FileCallCache implements CallCacheStore {
  readonly path: string;
  readonly #entries: Map<string, CachedCall>;

  private constructor(path: string, entries: Map<string, CachedCall>) {
    this.path = path;
    this.#entries = entries;
  }

  /** Opens (or starts) the cache file at `path`. */
  static async open(path: string): Promise<FileCallCache> {
    const entries = new Map<string, CachedCall>();
    let text = "";
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    for (const line of text.split("\n")) {
      if (line.trim() === "") continue;
      try {
        const { key, text: answer, usage } = JSON.parse(line) as { key: string } & CachedCall;
        if (typeof key === "string" && typeof answer === "string") {
          entries.set(key, usage ? { text: answer, usage } : { text: answer });
        }
      } catch {
        // A line torn by a kill mid-write: that call is simply paid again.
      }
    }
    await mkdir(dirname(path), { recursive: true });
    return new FileCallCache(path, entries);
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
    await appendFile(this.path, `${JSON.stringify({ key, ...entry })}\n`);
  }
}
