import type { ReaderSkipCode } from "./formats/types.js";

/**
 * Why a file or folder was not read. The walk's own reasons, then the readers' ({@link ReaderSkipCode}: `binary`,
 * `invalid_utf8`, `unsupported`, `too_large`, `encrypted`, `no_text_layer`, `corrupt`, `empty`).
 * - `ignored`: by a `.gitignore`/`.ragsignore`, a default folder (`node_modules`, `dist`…), a hidden name, a glob
 *   (`include`/`exclude`) or `extensions`; the reason names which.
 * - `outside_roots`: a symbolic link (or `..`) leading outside the paths given.
 * - `symlink_loop`: a symbolic link leading back to itself or to a folder that holds it.
 * - `duplicate`: the same file or folder as one already read, reached by another link.
 * - `not_a_file`: a device, FIFO, socket, or a file under `/proc`, `/sys` or `/dev`.
 * - `not_recursive`: a subfolder when `recursive` is false.
 * - `unreadable`: could not be opened or examined (permissions, a broken link, a vanished file).
 */
export type SkipCode =
  | "ignored"
  | "outside_roots"
  | "symlink_loop"
  | "duplicate"
  | "not_a_file"
  | "not_recursive"
  | "unreadable"
  | ReaderSkipCode;

/** A file or folder that was not read, and why. */
export interface SkippedPath {
  /** The path, in the same form as documents' `file_path`. */
  path: string;
  code: SkipCode;
  /** A sentence for people: `binary file (contains NUL bytes)`. */
  reason: string;
}
