import { MissingPeerDependencyError } from "./missing-peer-dependency-error.js";

type BullMQ = typeof import("bullmq");

let loading: Promise<BullMQ> | undefined;

/**
 * Loads the optional `bullmq` peer (and checks that `ioredis`, which it connects through, is there) on
 * first use, so the embedded backend and the rest of ragsynth never need them.
 * @throws MissingPeerDependencyError naming `npm i bullmq ioredis` when either is missing
 */
export function loadBullMQ(): Promise<BullMQ> {
  loading ??= (async () => {
    try {
      await import("ioredis");
      return await import("bullmq");
    } catch (error) {
      loading = undefined;
      throw missingPeer(error);
    }
  })();
  return loading;
}

/**
 * Loads the optional `ioredis` peer alone (much lighter than BullMQ): enough to check a Redis before a run.
 * @throws MissingPeerDependencyError naming `npm i bullmq ioredis` when it is missing
 */
export async function loadIoredis(): Promise<{ Redis: typeof import("ioredis").Redis }> {
  try {
    return await import("ioredis");
  } catch (error) {
    throw missingPeer(error);
  }
}

/** A failed import as the error to throw: a missing module names the packages to install; anything else as it was. */
function missingPeer(error: unknown): unknown {
  const code = (error as { code?: unknown })?.code;
  if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") return error;
  return new MissingPeerDependencyError({
    packages: ["bullmq", "ioredis"],
    feature: "The BullMQ batch backend (a Redis URL was given)",
    cause: error,
  });
}
