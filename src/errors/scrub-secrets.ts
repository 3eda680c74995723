const REDACTED = "[REDACTED]";

/**
 * Replaces every secret, bearer token and `sk-…` key in `text` with `[REDACTED]`: the one scrubber for
 * text that may reach an error message or a log.
 */
export function scrubSecrets(text: string, secrets: readonly string[] = []): string {
  let result = text;
  for (const secret of secrets) {
    if (secret.length >= 4) result = result.split(secret).join(REDACTED);
  }
  return result
    .replace(/Bearer\s+[^\s"',]+/gi, `Bearer ${REDACTED}`)
    .replace(/\bsk-[A-Za-z0-9_-]{8,}/g, REDACTED);
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
