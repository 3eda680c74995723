import { homedir } from "node:os";
import { join } from "node:path";

/** ragsynth's folder in the user's cache directory: `$XDG_CACHE_HOME/ragsynth`, `~/.cache/ragsynth` without it. */
export function userCacheDir(env: Readonly<Record<string, string | undefined>>): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "ragsynth");
}
