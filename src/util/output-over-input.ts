import { realpath, stat } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";

/** Options of {@link findOutputOverInput}. */
export interface OutputOverInputOptions {
  /** The files a run will write, each by its name for people (a flag: `--out`); undefined entries are skipped. */
  outputs: ReadonlyArray<readonly [name: string, path: string | undefined]>;
  /** The files and folders it reads: a file must not be written over, nor an existing file inside a folder. */
  inputs: ReadonlyArray<readonly [what: string, path: string | undefined]>;
  /** Relative paths are resolved against this folder. */
  cwd: string;
}

/** An output that would land on an input: the output as given, the input, and whether it is that very file. */
export interface OutputOverInput {
  name: string;
  path: string;
  /** The input, as named in {@link OutputOverInputOptions.inputs}, and its real path. */
  input: { what: string; real: string };
  /** The output is the input itself; otherwise it is an existing file inside the input folder. */
  same: boolean;
}

/**
 * The first output that resolves (through symlinks, `..` and hard links) to an input file, or to an existing file
 * inside an input folder (a document); undefined when none does. Reads nothing but the file system's metadata, so
 * a run checks this before it reads or writes anything.
 */
export async function findOutputOverInput({
  outputs,
  inputs,
  cwd,
}: OutputOverInputOptions): Promise<OutputOverInput | undefined> {
  const resolvedInputs: Array<{ what: string; real: string; folder: boolean; id: string | undefined }> = [];
  for (const [what, path] of inputs) {
    if (path === undefined) continue;
    const real = await realOrResolved(resolve(cwd, path));
    const info = await stat(real).catch(() => undefined);
    resolvedInputs.push({ what, real, folder: info?.isDirectory() === true, id: fileId(info) });
  }
  for (const [name, path] of outputs) {
    if (path === undefined) continue;
    const real = await realOrResolved(resolve(cwd, path));
    const info = await stat(real).catch(() => undefined);
    for (const input of resolvedInputs) {
      const same = real === input.real || (fileId(info) !== undefined && fileId(info) === input.id);
      const inside = input.folder && info?.isFile() === true && isInside(input.real, real);
      if (same || inside) return { name, path, input: { what: input.what, real: input.real }, same };
    }
  }
  return undefined;
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
