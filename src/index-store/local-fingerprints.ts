import { join } from "node:path";
import type { TextNode } from "../schema/text-node.js";
import type { StoredSource } from "../store/index-store.js";
import {
  type FileFingerprint,
  fingerprintOfListed,
  isFileFingerprint,
  RunMemory,
  sameFingerprint,
} from "./memory-file.js";

/**
 * A file as this machine has it (size, modification time, reader) whose bytes it found to be the ones a shared
 * store's row holds (`bytesHash`): another machine's copy of the file, with another time.
 */
export interface LocalFingerprint extends FileFingerprint {
  bytesHash: string;
}

export const LOCAL_FINGERPRINTS_FILE = "fingerprints.json";
const FORMAT = 1;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * This machine's fingerprints of the files a shared store (PostgreSQL) holds, kept in its own folder: a store's
 * rows hold the size and time of the machine that wrote them last, and the same files checked out on another machine
 * have other times. Without this, each machine asking found every file changed by time, read and hashed every one
 * (its bytes the same), and wrote its own times, which the next machine found changed again. With it, a machine
 * reads a file's bytes once per change of the file or of the store's row.
 */
export class LocalFingerprints {
  readonly #memory: RunMemory<LocalFingerprint>;

  /** @param folder where they are kept; undefined keeps none (a store on this machine records its own times). */
  constructor(folder: string | undefined, { forget = false } = {}) {
    this.#memory = new RunMemory(folder === undefined ? undefined : join(folder, LOCAL_FINGERPRINTS_FILE), {
      format: FORMAT,
      isEntry: isLocalFingerprint,
      fields: ({ size, lastModifiedAt, reader, bytesHash }) => ({ size, lastModifiedAt, reader, bytesHash }),
      forget,
    });
  }

  /**
   * Whether this file, with this size, time and reader, was found to hold the bytes the store's row for it holds
   * now (same bytes hash, same reader): then it need not be read.
   */
  knows(
    file: { path: string; size: number; lastModifiedAt: string; reader: string },
    stored: StoredSource | undefined,
  ): boolean {
    const kept = this.#memory.earlier(file.path);
    if (
      !kept ||
      !sameFingerprint(kept, file) ||
      stored?.bytesHash !== kept.bytesHash ||
      stored.reader !== file.reader
    )
      return false;
    this.#memory.keep(file.path, kept);
    return true;
  }

  /** A listed document whose file was read and found to hold the bytes `bytesHash` (the store's row's). */
  note(document: TextNode, bytesHash: string): void {
    const fingerprint = fingerprintOfListed(document);
    if (fingerprint) this.#memory.keep(document.id, { ...fingerprint, bytesHash });
  }

  /** Keeps this run's fingerprints (those it used or found) for the next run, when they changed. */
  save(): void {
    this.#memory.save();
  }
}

function isLocalFingerprint(entry: unknown): entry is LocalFingerprint {
  if (!isFileFingerprint(entry)) return false;
  const { bytesHash } = entry as Partial<Record<keyof LocalFingerprint, unknown>>;
  return typeof bytesHash === "string" && SHA256_HEX.test(bytesHash);
}
