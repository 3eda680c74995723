/** Versions of its own writes' chain a store keeps: an older version only answers undefined. */
const MAX_OWN_VERSIONS = 64;

/**
 * The chain of a store's own write transactions by the version of its rows each began and ended at (an
 * {@link IndexStore.sourcesVersion}): each write that begins at the version the one before ended at extends it;
 * one that begins elsewhere (another writer came between) starts it again. Whether every change since a version was
 * the store's own is then a lookup.
 */
export class OwnWrites {
  /** The versions the chain's writes began at (the latest {@link MAX_OWN_VERSIONS}), and the one the last ended at. */
  #chain: { since: Set<number>; to: number } | undefined;

  /** Records a write transaction that began at `from` and ended at `to` (read inside it: no writer came between). */
  record(from: number, to: number): void {
    const chain = this.#chain;
    if (chain?.to !== from) {
      this.#chain = { since: new Set([from]), to };
      return;
    }
    chain.since.add(from);
    chain.to = to;
    for (const old of chain.since) {
      if (chain.since.size <= MAX_OWN_VERSIONS) break;
      chain.since.delete(old);
    }
  }

  /** Forgets the chain (a transaction around its writes rolled back). */
  forget(): void {
    this.#chain = undefined;
  }

  /** `now` when every change from `version` to `now` was a recorded write (or there was none); else undefined. */
  since(version: number, now: number | undefined): number | undefined {
    if (now === version) return now;
    const chain = this.#chain;
    return chain?.since.has(version) && chain.to === now ? now : undefined;
  }
}
