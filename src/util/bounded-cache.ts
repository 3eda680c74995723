/**
 * A size-capped memo with two generations: lookups hit the young map, or promote a hit from the old one;
 * when the young map is full it becomes the old one and the oldest generation is dropped. Entries in use
 * stay (each use moves them into the young map), memory stays below `2 × generationSize` entries, and a
 * full cache never empties at once (that made a warm repack of a large corpus as slow as a cold one).
 */
export class BoundedCache<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();

  constructor(private readonly generationSize: number) {}

  get(key: K): V | undefined {
    const value = this.young.get(key);
    if (value !== undefined) return value;
    const aged = this.old.get(key);
    if (aged !== undefined) this.set(key, aged);
    return aged;
  }

  set(key: K, value: V): void {
    if (this.young.size >= this.generationSize) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, value);
  }

  /**
   * Up to `limit` entries, each key once, the most recently set first (a promoted hit counts as set when it was
   * promoted): the young generation newest first, then the old one's keys not in it, newest first.
   */
  recent(limit: number): Array<[K, V]> {
    const entries: Array<[K, V]> = [];
    for (const generation of [this.young, this.old]) {
      const keys = [...generation.keys()];
      for (let index = keys.length - 1; index >= 0 && entries.length < limit; index--) {
        const key = keys[index] as K;
        if (generation === this.old && this.young.has(key)) continue;
        entries.push([key, generation.get(key) as V]);
      }
    }
    return entries;
  }

  /** Entries held, counting a key in both generations twice. */
  get size(): number {
    return this.young.size + this.old.size;
  }
}

// V8 keeps a slice of 13 characters or more as a view into the whole string it was cut from.
const SHARES_PARENT = 13;

/**
 * `text` with storage of its own when it could be a view into a longer string: a cache keyed by slices of a
 * document must store copies, or it keeps every document it ever saw alive.
 */
export function ownCopy(text: string): string {
  // Concatenation then slice flattens into a new string of length + 1; the view kept is into that copy.
  return text.length < SHARES_PARENT ? text : ` ${text}`.slice(1);
}
