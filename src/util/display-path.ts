import { isAbsolute, relative, resolve, sep } from "node:path";

/** A path for people: relative to `cwd` when it lies inside it (`.` for `cwd` itself), otherwise absolute. */
export function displayPath(path: string, cwd: string): string {
  const absolute = resolve(cwd, path);
  const inside = relative(cwd, absolute);
  if (inside === "") return ".";
  return inside === ".." || inside.startsWith(`..${sep}`) || isAbsolute(inside) ? absolute : inside;
}
