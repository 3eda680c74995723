// Who is building a folder's SQLite index right now: a small file beside the index, so an ask that finds another
// process building it answers from what that process has committed instead of building the same files again.
import {
  linkSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";

/** The lease's file, in the index's folder beside `ragsynth-index.sqlite`, while a process builds the index. */
export const BUILD_LEASE_FILE = "ragsynth-index.building";
/** How often a builder gives its lease file a new time, so that askers see the build is alive. */
export const RENEW_MS = 15_000;
/**
 * A lease file whose time is older than this is a build that ended without removing it (killed, or its machine
 * gone): four renewals missed. A process id alone could be taken by another process after a `kill -9`.
 */
export const STALE_MS = 60_000;

/** The process a lease names. */
export interface BuildLeaseHolder {
  pid: number;
  host: string;
  /** When it began building (ISO 8601). */
  startedAt: string;
}

/** A lease this process took: `release` ends it (at most once; later calls do nothing). */
export interface TakenBuildLease {
  release: () => void;
}

/**
 * Takes the folder's build lease for this process and renews it until released, unless another live process holds
 * it: then `heldBy` names that process and nothing is written. The lease file is created in one step (a hard link
 * of a file already written, which fails when the lease exists), so of two processes that try at the same instant
 * one takes it. A dead build's lease (stale, or its process gone) is replaced. A lease that cannot be written is not
 * an error: the build goes on without one, as builds did before leases.
 *
 * Two builds of one folder side by side are safe (the store takes their writes one at a time); the lease saves the
 * second one's duplicate work. Two processes that find the same dead lease at the same instant may both replace it
 * and both build.
 */
export function takeBuildLease(folder: string): TakenBuildLease | { heldBy: BuildLeaseHolder } {
  const file = join(folder, BUILD_LEASE_FILE);
  const holder: BuildLeaseHolder = {
    pid: process.pid,
    host: hostname(),
    startedAt: new Date().toISOString(),
  };
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(folder, { recursive: true });
    writeFileSync(temporary, `${JSON.stringify(holder)}\n`);
  } catch {
    removeQuietly(temporary);
    return { release: () => {} };
  }
  try {
    linkSync(temporary, file);
  } catch (error) {
    const other = (error as { code?: unknown }).code === "EEXIST" ? liveBuild(folder) : undefined;
    if (other) {
      removeQuietly(temporary);
      return { heldBy: other };
    }
    // A dead build's lease, or a file system without hard links: written over in one step.
    try {
      renameSync(temporary, file);
    } catch {
      removeQuietly(temporary);
      return { release: () => {} };
    }
  }
  removeQuietly(temporary);
  return { release: renewUntilReleased(file, holder) };
}

function renewUntilReleased(file: string, holder: BuildLeaseHolder): () => void {
  const timer = setInterval(() => {
    try {
      const now = new Date();
      utimesSync(file, now, now);
    } catch {
      // Gone (the folder removed, another build's lease in its place): askers then see no live build of ours.
    }
  }, RENEW_MS);
  timer.unref();
  let released = false;
  return () => {
    if (released) return;
    released = true;
    clearInterval(timer);
    const current = readHolder(file);
    try {
      if (current?.pid === holder.pid && current.host === holder.host) rmSync(file, { force: true });
    } catch {
      // Left behind: askers pass over a lease not renewed for STALE_MS, and the next build takes its place.
    }
  };
}

function removeQuietly(file: string): void {
  try {
    rmSync(file, { force: true });
  } catch {
    // The folder cannot be written at all: the build says so when it writes the index.
  }
}

/**
 * The other process building the folder's index now, or undefined: a lease whose file was renewed within
 * {@link STALE_MS} (`now`) and, on this machine, whose process is alive. The file is untrusted: anything else in it
 * is no lease.
 */
export function liveBuild(folder: string, now = Date.now()): BuildLeaseHolder | undefined {
  const file = join(folder, BUILD_LEASE_FILE);
  let renewedAt: number;
  try {
    renewedAt = statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
  if (!(now - renewedAt < STALE_MS)) return undefined;
  const holder = readHolder(file);
  if (!holder) return undefined;
  if (holder.host !== hostname()) return holder;
  if (holder.pid === process.pid) return undefined;
  try {
    process.kill(holder.pid, 0);
    return holder;
  } catch (error) {
    // EPERM: alive, another user's.
    return (error as { code?: unknown }).code === "EPERM" ? holder : undefined;
  }
}

function readHolder(file: string): BuildLeaseHolder | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const { pid, host, startedAt } = parsed as Record<string, unknown>;
  if (!(Number.isSafeInteger(pid) && (pid as number) > 0) || typeof host !== "string" || host === "")
    return undefined;
  if (typeof startedAt !== "string" || Number.isNaN(Date.parse(startedAt))) return undefined;
  return { pid: pid as number, host, startedAt };
}
