/** What every scrubber writes in place of a secret: errors, logs, spans, trace pages and the CLI's output. */
export const REDACTED = "[REDACTED]";

/**
 * Known secrets shorter than this are not replaced: they would redact ordinary words (an Ollama server's
 * placeholder key `ollama`). Patterns (`sk-…`, `Bearer …`) are replaced whatever the length.
 */
export const MIN_SECRET_LENGTH = 8;

/**
 * Replaces every occurrence of the given secrets (of at least {@link MIN_SECRET_LENGTH} characters, longest
 * first, so a key that contains another is replaced whole) with `[REDACTED]`, and nothing else: for output
 * that may quote `Bearer` or `sk-` on purpose (the CLI's answers).
 */
export function redactKnownSecrets(text: string, secrets: ReadonlyArray<string | undefined>): string {
  let result = text;
  for (const secret of longestFirst(secrets)) {
    if (result.includes(secret)) result = result.split(secret).join(REDACTED);
  }
  return result;
}

/** The secrets worth replacing, without repeats, longest first. */
function longestFirst(secrets: ReadonlyArray<string | undefined>): string[] {
  const kept = secrets.filter(
    (secret): secret is string => typeof secret === "string" && secret.length >= MIN_SECRET_LENGTH,
  );
  return [...new Set(kept)].sort((a, b) => b.length - a.length);
}

/**
 * Replaces every given secret ({@link redactKnownSecrets}), bearer token and `sk-…` key in `text` with
 * `[REDACTED]`: the one scrubber for text that may reach an error message, a log or a span.
 */
export function scrubSecrets(text: string, secrets: ReadonlyArray<string | undefined> = []): string {
  return redactKnownSecrets(text, secrets)
    .replace(/Bearer\s+[^\s"',]+/gi, `Bearer ${REDACTED}`)
    .replace(/\bsk-[A-Za-z0-9_-]{8,}/g, REDACTED)
    .replace(URL_PASSWORD, `$1${REDACTED}@`);
}

/** `text` with the password of every URL in it (`redis://user:password@host`) replaced by `[REDACTED]`. */
export function hideUrlPasswords(text: string): string {
  return text.replace(URL_PASSWORD, `$1${REDACTED}@`);
}

// The password of a URL's user info (`redis://user:password@host`, `https://:token@host`), wherever it is quoted.
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/@:'"]*:)[^\s/@'"]+@/gi;

/**
 * The secrets in a URL's user info (`redis://user:password@host`): the password as written and percent-decoded,
 * for {@link redactKnownSecrets} (a client library may quote it bare, as in `AUTH user password`). Empty for a
 * URL without one or for no URL.
 */
export function urlCredentials(url: string | undefined): string[] {
  const match = url === undefined ? undefined : /^([a-z][a-z0-9+.-]*):\/\/([^/@]*)@/i.exec(url.trim());
  const userInfo = match?.[2];
  // Without a colon, ioredis takes the whole user info as the password; PostgreSQL (libpq, pg) takes it as the user
  // name, which is no secret (redacting it would hide that word everywhere in the output: `ragsynth: …` lines, a
  // schema of the same name, answers).
  const userOnly = !userInfo?.includes(":") && /^postgres(ql)?$/i.test(match?.[1] ?? "");
  const password = userInfo?.includes(":")
    ? userInfo.slice(userInfo.indexOf(":") + 1)
    : userOnly
      ? ""
      : userInfo;
  if (!password) return [];
  let decoded = password;
  try {
    decoded = decodeURIComponent(password);
  } catch {
    // kept as written
  }
  return decoded === password ? [password] : [password, decoded];
}

/** A URL with its password (not its user name) replaced by `[REDACTED]`: for messages that name a Redis URL. */
export function hideUrlPassword(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^/@]*)@/i, (_, scheme: string, userInfo: string) =>
    userInfo.includes(":")
      ? `${scheme}${userInfo.slice(0, userInfo.indexOf(":") + 1)}${REDACTED}@`
      : `${scheme}${REDACTED}@`,
  );
}

/**
 * A URL without its user info (`//user:password@`): the text form, so it works on URLs `new URL` refuses
 * (for messages about a malformed URL) and keeps the rest (a Redis URL's `?db=`).
 */
export function stripUrlCredentials(url: string): string {
  return url.replace(/\/\/[^@/]*@/, "//");
}

// Option and header names whose values are credentials (`apiKey`, `api-key`, `Authorization`, `clientSecret`).
const SECRET_KEY = /api[-_]?key|authorization|password|secret|cookie|access[-_]?token|auth[-_]?token/i;

/** `JSON.stringify` that writes `[REDACTED]` for the string values of credential-like keys, then scrubs the result. */
export function stringifyScrubbed(value: unknown): string | undefined {
  const json = JSON.stringify(value, (key, item: unknown) =>
    typeof item === "string" && SECRET_KEY.test(key) ? REDACTED : item,
  );
  return json === undefined ? undefined : scrubSecrets(json);
}

/**
 * `value` itself when it holds no credential, otherwise a scrubbed copy (JSON data only), so an error
 * can keep what arrived on a field without keeping an API key.
 */
export function withoutCredentials(value: unknown): unknown {
  if (typeof value === "string") return scrubSecrets(value);
  if (typeof value !== "object" || value === null) return value;
  try {
    const json = JSON.stringify(value);
    const scrubbed = stringifyScrubbed(value);
    return json === undefined || scrubbed === undefined || scrubbed === json ? value : JSON.parse(scrubbed);
  } catch {
    return value;
  }
}

/** A copy of JSON data with `redact` applied to every string value (keys kept): results, cache entries. */
export function redactJson<T>(value: T, redact: (text: string) => string): T {
  if (typeof value === "string") return redact(value) as T;
  if (Array.isArray(value)) return value.map((item) => redactJson(item, redact)) as T;
  if (typeof value !== "object" || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) copy[key] = redactJson(item, redact);
  return copy as T;
}
