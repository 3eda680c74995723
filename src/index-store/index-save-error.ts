import { checkErrorFields } from "../errors/check-error-fields.js";
import { hasErrorMarker, markError, RagsynthError } from "../errors/ragsynth-error.js";

const marker = "ragsynth.error.IndexSaveError";

/** How to fix a failed write, by Node's error code. */
function hintFor(systemCode: string | undefined, dir: string): string {
  switch (systemCode) {
    case "ENOTDIR":
    case "EEXIST":
      return `A part of ${dir} is a file, not a folder: persist to another folder, or move that file away.`;
    case "EACCES":
    case "EPERM":
    case "EROFS":
      return `Persist to a folder you can write to, or fix the permissions of ${dir}.`;
    case "ENOSPC":
    case "EDQUOT":
      return "Free some disk space, or persist to another drive.";
    default:
      return `Check that ${dir} is a writable folder, or persist to another one.`;
  }
}

/**
 * {@link VectorStoreIndex.persist} could not write the index file (a part of the path is a file, no
 * permission, a full disk). Carries the file's `path` and Node's `systemCode`; the file-system error is the `cause`.
 */
export class IndexSaveError extends RagsynthError {
  /** The index file that could not be written (`<dir>/ragsynth-index.json.gz`). */
  readonly path: string;
  /** Node's error code (`ENOTDIR`, `EACCES`, `ENOSPC`), when the failure had one. */
  readonly systemCode: string | undefined;

  constructor(fields: { path: string; dir: string; cause: unknown }) {
    const { path, dir, cause } = checkErrorFields(fields, "IndexSaveError", {
      path: "string",
      dir: "string",
    });
    const code = (cause as { code?: unknown } | undefined)?.code;
    const systemCode = typeof code === "string" ? code : undefined;
    super({
      code: "index_save",
      message: `Could not save the index to ${path}${systemCode ? ` (${systemCode})` : ""}. ${hintFor(systemCode, dir)}`,
      cause,
    });
    this.name = "IndexSaveError";
    markError(this, marker);
    this.path = path;
    this.systemCode = systemCode;
  }

  /** True when `error` is an {@link IndexSaveError} (also across duplicated copies of the package). */
  static override isInstance(error: unknown): error is IndexSaveError {
    return hasErrorMarker(error, marker);
  }
}
