import { RagsynthError } from "../errors/ragsynth-error.js";

/** A batch input file (JSONL of items) could not be read: says which line, what was expected and how to fix it. */
export class BatchInputError extends RagsynthError {
  /** The 1-based line of the input, when one line is at fault. */
  readonly line: number | undefined;

  constructor({ message, line, cause }: { message: string; line?: number; cause?: unknown }) {
    super({ code: "batch_input", message: line === undefined ? message : `Line ${line}: ${message}`, cause });
    this.name = "BatchInputError";
    this.line = line;
  }
}

/** An optional peer package (bullmq, ioredis) is needed for what was asked but is not installed. */
export class MissingPeerDependencyError extends RagsynthError {
  /** The packages to install. */
  readonly packages: readonly string[];

  constructor({ packages, feature, cause }: { packages: string[]; feature: string; cause?: unknown }) {
    super({
      code: "missing_peer_dependency",
      message: `${feature} needs ${packages.join(" and ")}, which ${packages.length > 1 ? "are" : "is"} not installed. Run \`npm i ${packages.join(" ")}\`, or leave out the Redis URL to use the embedded backend.`,
      cause,
    });
    this.name = "MissingPeerDependencyError";
    this.packages = packages;
  }
}
