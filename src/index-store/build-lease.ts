// Who is building a folder's SQLite index right now: a small file beside the index, so an ask that finds another
// process building it answers from what that process has committed instead of building the same files again.
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
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

/**
 * Takes the folder's build lease for this process (in place of any there: a dead build's, or another live one's,
 * which then builds beside this one as two builds always could) and renews it until the returned function releases
 * it. A lease that cannot be written is not an error: askers then build too, as they did before leases.
 */
export function takeBuildLease(folder: string): () => void {
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
    renameSync(temporary, file);
  } catch {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // The folder cannot be written at all: the build says so when it writes the index.
    }
    return () => {};
  }
  const timer = setInterval(() => {
    try {
      const now = new Date();
      utimesSync(file, now, now);
    } catch {
      // Gone (the folder removed, another build's lease in its place): askers then see no live build of ours.
    }
  }, RENEW_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    const current = readHolder(file);
    try {
      if (current?.pid === holder.pid && current.host === holder.host) rmSync(file, { force: true });
    } catch {
      // Left behind: askers pass over a lease not renewed for STALE_MS, and the next build takes its place.
    }
  };
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
