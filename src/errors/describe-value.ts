import { scrubSecrets, stringifyScrubbed } from "./scrub-secrets.js";

const shorten = (text: string) => (text.length > 60 ? `${text.slice(0, 57)}...` : text);

/**
 * Renders a value for an error message: `600` (number), `"abc"` (string), `undefined`. Credentials are
 * scrubbed first (an options object passed where a model belongs must not put its `apiKey` in a message).
 */
export function describeValue(value: unknown): string {
  if (value === undefined) return "`undefined`";
  if (value === null) return "`null`";
  const type = Array.isArray(value) ? "array" : typeof value;
  let shown: string;
  if (typeof value === "string") {
    shown = JSON.stringify(shorten(scrubSecrets(value)));
  } else if (typeof value === "object") {
    try {
      shown = shorten(stringifyScrubbed(value) ?? String(value));
    } catch {
      shown = String(value);
    }
  } else {
    shown = String(value);
  }
  return `\`${shown}\` (${type})`;
}
