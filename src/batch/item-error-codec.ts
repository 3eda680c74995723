import type { BatchItemError } from "./types.js";
import { toItemError } from "./types.js";

/**
 * A failure as a job's failed reason: `<code>: <message>`, so the typed error's code survives the trip
 * through Redis (BullMQ keeps only the message) and reads well in any BullMQ dashboard.
 */
export function encodeItemError(error: unknown): string {
  const { code, message } = toItemError(error);
  return `${code}: ${message}`;
}

/** Reads back what {@link encodeItemError} wrote; a reason in another form keeps code `unknown`. */
export function decodeItemError(reason: string | undefined, attempts: number): BatchItemError {
  const match = /^([a-z_]+): ([\s\S]*)$/.exec(reason ?? "");
  if (!match) return { code: "unknown", message: reason ?? "The job failed without a reason.", attempts };
  return { code: match[1] as BatchItemError["code"], message: match[2] as string, attempts };
}
