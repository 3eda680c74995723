import { realpath, stat } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { UsageError } from "./usage-error.js";

/** Options of {@link refuseOutputOverInput}. */
export interface RefuseOutputOverInputOptions {
  /** The files a command will write, by the flag that named them (`--out`); undefined entries are skipped. */
  outputs: ReadonlyArray<readonly [flag: string, path: string | undefined]>;
  /** The files and folders it reads: a file must not be written over, nor an existing file inside a folder. */
  inputs: ReadonlyArray<readonly [what: string, path: string | undefined]>;
  /** Relative paths are resolved against this folder. */
  cwd: string;
}

/**
 * Refuses to start a command whose output would land on one of its inputs: an output path that resolves
 * (through symlinks, `..` and hard links) to an input file, or to an existing file inside an input folder (a
 * document). Nothing is written or read before this check, so the input is untouched.
 * @throws UsageError (exit 2) naming the flag, the input and how to fix it
 */
export async function refuseOutputOverInput({
  outputs,
  inputs,
  cwd,
}: RefuseOutputOverInputOptions): Promise<void> {
  const resolvedInputs: Array<{ what: string; real: string; folder: boolean; id: string | undefined }> = [];
  for (const [what, path] of inputs) {
    if (path === undefined) continue;
    const real = await realOrResolved(resolve(cwd, path));
    const info = await stat(real).catch(() => undefined);
    resolvedInputs.push({ what, real, folder: info?.isDirectory() === true, id: fileId(info) });
  }
  for (const [flag, path] of outputs) {
    if (path === undefined) continue;
    const real = await realOrResolved(resolve(cwd, path));
    const info = await stat(real).catch(() => undefined);
    for (const input of resolvedInputs) {
      const same = real === input.real || (fileId(info) !== undefined && fileId(info) === input.id);
      const inside = input.folder && info?.isFile() === true && isInside(input.real, real);
      if (!same && !inside) continue;
      throw new UsageError(
        same
          ? `${flag} ${path} is the ${input.what} this command reads; writing there would destroy it.`
          : `${flag} ${path} is a file inside the ${input.what} (${input.real}); writing there would replace a document.`,
        `Give ${flag} a new file outside the inputs, e.g. ${flag} ${suggestion(flag)}.`,
      );
    }
  }
}

/** The real path; for a file not created yet, its folder's real path joined with its name. */
async function realOrResolved(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    try {
      return join(await realpath(dirname(path)), basename(path));
    } catch {
      return path;
    }
  }
}

function fileId(info: { dev: number; ino: number; isFile(): boolean } | undefined): string | undefined {
  return info?.isFile() ? `${info.dev}:${info.ino}` : undefined;
}

function isInside(folder: string, path: string): boolean {
  const inside = relative(folder, path);
  return inside !== "" && !inside.startsWith("..") && !isAbsolute(inside);
}

function suggestion(flag: string): string {
  if (flag === "--report") return "report.html";
  if (flag === "--call-cache") return "calls.jsonl";
  return "answers.jsonl";
}
