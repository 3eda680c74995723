import { checkErrorFields } from "../errors/check-error-fields.js";
import { hasErrorMarker, markError, RagsynthError } from "../errors/ragsynth-error.js";

const marker = "ragsynth.error.MissingPeerDependencyError";

/** An optional peer package (bullmq, ioredis) is needed for what was asked but is not installed. */
export class MissingPeerDependencyError extends RagsynthError {
  /** The packages to install. */
  readonly packages: readonly string[];

  constructor(fields: { packages: string[]; feature: string; cause?: unknown }) {
    const { packages, feature, cause } = checkErrorFields(fields, "MissingPeerDependencyError", {
      packages: "string[]",
      feature: "string",
    });
    super({
      code: "missing_peer_dependency",
      message: `${feature} needs ${packages.join(" and ")}, which ${packages.length > 1 ? "are" : "is"} not installed. Run \`npm i ${packages.join(" ")}\`, or leave out the Redis URL to use the embedded backend.`,
      cause,
    });
    this.name = "MissingPeerDependencyError";
    markError(this, marker);
    this.packages = packages;
  }

  /** True when `error` is a {@link MissingPeerDependencyError} (also across duplicated copies of the package). */
  static override isInstance(error: unknown): error is MissingPeerDependencyError {
    return hasErrorMarker(error, marker);
  }
}
