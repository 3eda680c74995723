import { checkErrorFields } from "../errors/check-error-fields.js";
import { hasErrorMarker, markError, RagsynthError } from "../errors/ragsynth-error.js";
import { hideUrlPassword, scrubSecrets, urlCredentials } from "../errors/scrub-secrets.js";

const marker = "ragsynth.error.RedisUnavailableError";

/**
 * Redis could not be reached, or refused the credentials: names the URL with its password hidden, what the
 * server or the network said (scrubbed of the password), and how to fix it.
 */
export class RedisUnavailableError extends RagsynthError {
  /** The URL with its password replaced by `[REDACTED]`. */
  readonly url: string;
  /** `auth` when the server refused the credentials, `unreachable` otherwise. */
  readonly reason: "auth" | "unreachable";

  constructor(fields: { redisUrl: string; cause?: unknown; timeoutMs: number }) {
    const { redisUrl, cause, timeoutMs } = checkErrorFields(fields, "RedisUnavailableError", {
      redisUrl: "string",
      timeoutMs: "number",
    });
    const url = hideUrlPassword(redisUrl);
    const said = scrubSecrets(
      cause instanceof Error ? cause.message : cause === undefined ? "" : String(cause),
      urlCredentials(redisUrl),
    )
      .replace(/\s+/g, " ")
      .trim()
      .replace(/\.+$/, "");
    const auth = /WRONGPASS|NOAUTH|NOPERM|invalid password|invalid username|AUTH/i.test(said);
    const message = auth
      ? `Redis at ${url} refused the credentials (${said}). Check the user name and password in the URL (or RAGSYNTH_REDIS_URL).`
      : `Cannot reach Redis at ${url} (${said || `no answer within ${timeoutMs / 1000} s`}). Check that redis-server is running there and that the URL (or RAGSYNTH_REDIS_URL) is right.`;
    // The cause is kept out: a client library's error may quote the password (`AUTH user password`).
    super({ code: "redis_unavailable", message });
    this.name = "RedisUnavailableError";
    markError(this, marker);
    this.url = url;
    this.reason = auth ? "auth" : "unreachable";
  }

  /** True when `error` is a {@link RedisUnavailableError} (also across duplicated copies of the package). */
  static override isInstance(error: unknown): error is RedisUnavailableError {
    return hasErrorMarker(error, marker);
  }
}
