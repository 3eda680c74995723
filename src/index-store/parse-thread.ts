import { builtInReadersFor, createReaderRegistry, type ReaderRegistry } from "../reader/formats/registry.js";
import {
  type ReaderLimits,
  type ReaderSkipCode,
  ReaderSkipError,
  type ReadFileResult,
} from "../reader/formats/types.js";
import { nameParts } from "../reader/read-file.js";

// What an index build's worker threads are sent to parse and send back (split-pool.ts sends, split-worker.ts
// answers): a file's bytes in, what its reader made of them out. Only files of a folder index's readers go, the
// built-in ones by ending (`readAs`), which a thread makes again from plain data: a reader passed in as code stays
// in the main thread.

/** A file's bytes to parse with the reader the main thread chose for it. */
export interface ParseRequest {
  seq: number;
  parse: {
    /** The folder index's `readAs` (endings by built-in format), from which the thread makes the same registry. */
    readAs: Readonly<Record<string, string>>;
    /** The id of the reader the main thread chose (`markdown@9`): the thread's must be the same. */
    readerId: string;
    /** The file's display path (the reader's `path`; its name picks the reader). */
    path: string;
    bytes: Uint8Array;
    limits: ReaderLimits;
  };
}

/**
 * What the reader returned; or what it threw (`skip`: a `ReaderSkipError`'s code), thrown again in the main thread;
 * or `cannot`: the thread chose another reader, or could not send the result (the main thread parses the file).
 */
export type ParseReply =
  | { seq: number; parsed: ReadFileResult }
  | { seq: number; threw: string; skip?: ReaderSkipCode }
  | { seq: number; cannot: true };

/** Registries made in this thread, by their `readAs`. */
const registries = new Map<string, ReaderRegistry>();

/** Parses one file's bytes in a worker thread. */
export async function parseRequested({ seq, parse }: ParseRequest): Promise<ParseReply> {
  const key = JSON.stringify(parse.readAs);
  let registry = registries.get(key);
  if (!registry) {
    registry = createReaderRegistry({ readers: builtInReadersFor(parse.readAs) });
    registries.set(key, registry);
  }
  // Chosen as the main thread's listing chose it (read-file.ts): by the name in the display path, else the fallback.
  const chosen = registry.readerFor(nameParts(parse.path).name) ?? registry.fallback;
  if (chosen.id !== parse.readerId) return { seq, cannot: true };
  try {
    const parsed = await chosen.reader.read({ bytes: parse.bytes, path: parse.path, limits: parse.limits });
    return { seq, parsed };
  } catch (error) {
    const threw = error instanceof Error ? error.message : String(error);
    return ReaderSkipError.isInstance(error) ? { seq, threw, skip: error.code } : { seq, threw };
  }
}

/** A reply's result in the main thread: the reader's, what it threw thrown again, or `undefined` to parse here. */
export function parsedResult(reply: ParseReply | undefined): ReadFileResult | undefined {
  if (!reply || "cannot" in reply) return undefined;
  if ("parsed" in reply) return reply.parsed;
  throw reply.skip === undefined ? new Error(reply.threw) : new ReaderSkipError(reply.skip, reply.threw);
}
