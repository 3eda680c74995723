import { builtInFormats } from "../reader/formats/registry.js";
import { didYouMean, UsageError } from "./usage-error.js";

/** How the CLI's walk flags reach the reader (`--include`, `--exclude`, `--no-ignore`, `--hidden`, `--follow-symlinks`). */
export interface WalkFlags {
  include: string[];
  exclude: string[];
  /** `--read-as .mdx=markdown`: endings mapped to built-in formats. */
  readAs: Record<string, string>;
  noIgnore: boolean;
  hidden: boolean;
  followSymlinks: boolean;
}

/** The walk flags of `index`, `ask` and `plan` from parseArgs' values. @throws UsageError */
export function walkFlags(values: Record<string, unknown>): WalkFlags {
  return {
    include: globs("--include", values.include),
    exclude: globs("--exclude", values.exclude),
    readAs: readAs(values["read-as"]),
    noIgnore: values["no-ignore"] === true,
    hidden: values.hidden === true,
    followSymlinks: values["follow-symlinks"] === true,
  };
}

/** `--read-as .mdx=markdown` (repeatable): each ending and the built-in format to read it as. */
function readAs(raw: unknown): Record<string, string> {
  const given = (Array.isArray(raw) ? raw : typeof raw === "string" ? [raw] : []) as string[];
  const formats = builtInFormats();
  const out: Record<string, string> = {};
  for (const value of given) {
    const [ending = "", format = "", ...extra] = value.split("=").map((part) => part.trim());
    if (!/^\.?[\w.+-]+$/.test(ending) || format === "" || extra.length > 0) {
      throw new UsageError(
        `Cannot read --read-as "${value}": expected <ending>=<format>.`,
        `Example: --read-as .mdx=markdown. Formats: ${formats.join(", ")}.`,
      );
    }
    if (!formats.includes(format)) {
      throw new UsageError(
        `Unknown format "${format}" in --read-as ${value}.`,
        `${didYouMean(format, formats)}Formats: ${formats.join(", ")}.`,
      );
    }
    out[ending.startsWith(".") ? ending.toLowerCase() : `.${ending.toLowerCase()}`] = format;
  }
  return out;
}

/** The patterns of a repeatable glob option; an empty one is a mistake. */
function globs(flag: string, raw: unknown): string[] {
  const given = (Array.isArray(raw) ? raw : typeof raw === "string" ? [raw] : []) as string[];
  for (const pattern of given) {
    if (pattern.trim() === "") {
      throw new UsageError(`${flag} needs a glob pattern, got an empty one.`, `Example: ${flag} "**/*.md"`);
    }
  }
  return given;
}
