import { existsSync } from "node:fs";
import { isAbsolute, join, sep } from "node:path";

/** A path given to a folder index: where it is, and the name its files get from this working folder. */
export interface GivenRoot {
  /** The absolute path. */
  location: string;
  /** Relative to the working folder (`docs`, `.`), or absolute outside it: forward slashes. */
  name: string;
}

/** The names {@link namesAsStored} chose, and the folder they are relative to. */
export interface StoredNames {
  /** By each root's `location`, the name its files are listed under. */
  names: Record<string, string>;
  /** The folder relative names resolve against (the working folder, unless the store's names are another's). */
  from: string;
}

// A store's ids tried per candidate name before it is judged not to be the store's: a file moved since tells
// nothing either way, three in a row that are gone do.
const TRIES = 3;

/**
 * The names under which a store holds the roots' files. An index names a file by its path from the working folder
 * it was built from (`docs/guide.md`); asked from inside `docs` (`ask .`) or by its absolute path, the same file is
 * `guide.md` or `/home/me/docs/guide.md`, and every file looked new (read, split and indexed again: minutes at 10^6
 * chunks). A root whose own name holds none of the store's files gets the shortest trailing part of its path
 * (`docs`, then `me/docs`…, then the absolute path) under which the store holds a file that exists at the same place
 * below it. All roots must then agree on the folder the names are relative to (one folder that images and relative
 * links resolve against); when they do not, or nothing matches, the working folder's names stay (the index is then
 * brought up to date by reading the files, as before, and the caller says why).
 * @param stored the store's file ids (sorted or not)
 */
export function namesAsStored(
  roots: readonly GivenRoot[],
  stored: ReadonlyMap<string, unknown>,
  cwd: string,
): StoredNames {
  const own: StoredNames = {
    names: Object.fromEntries(roots.map((root) => [root.location, root.name])),
    from: cwd,
  };
  if (stored.size === 0) return own;
  const names: Record<string, string> = {};
  let from: string | undefined;
  for (const root of roots) {
    const name = holds(stored, root.name, root.location)
      ? root.name
      : trailingNames(root.location).find((candidate) => holds(stored, candidate, root.location));
    if (name === undefined) return own;
    const base = folderOf(root, name, cwd);
    if (base !== undefined) {
      if (from !== undefined && from !== base) return own;
      from = base;
    }
    names[root.location] = name;
  }
  return { names, from: from ?? cwd };
}

/** Whether the store holds a file under `name` that exists at the same place below `location`. */
function holds(stored: ReadonlyMap<string, unknown>, name: string, location: string): boolean {
  let tried = 0;
  for (const id of stored.keys()) {
    const rest = below(id, name);
    if (rest === undefined) continue;
    if (existsSync(rest === "" ? location : join(location, rest))) return true;
    tried += 1;
    if (tried === TRIES) return false;
  }
  return false;
}

/** `id`'s path below the root named `name` (`""` for the root itself), or undefined when it is not below it. */
function below(id: string, name: string): string | undefined {
  if (name === ".") return isAbsolute(id) || id === ".." || id.startsWith("../") ? undefined : id;
  if (id === name) return "";
  return id.length > name.length && id.startsWith(name) && id[name.length] === "/"
    ? id.slice(name.length + 1)
    : undefined;
}

/** `docs`, `me/docs`, `home/me/docs`, then `/home/me/docs`: the names a store may hold a root under. */
function trailingNames(location: string): string[] {
  const parts = location.split(sep).filter((part) => part !== "");
  const names = parts.map((_, index) => parts.slice(parts.length - 1 - index).join("/"));
  names.push(location.split(sep).join("/"));
  return names;
}

/**
 * The folder `name` (the root's own name, or one the store holds it by) is relative to: the working folder for its own
 * name, its location with the name's parts taken off the end for another; undefined for an absolute name.
 */
function folderOf(root: GivenRoot, name: string, cwd: string): string | undefined {
  if (isAbsolute(name)) return undefined;
  if (name === root.name) return cwd;
  if (name === ".") return root.location;
  const parts = root.location.split(sep);
  return parts.slice(0, parts.length - name.split("/").length).join(sep) || sep;
}
