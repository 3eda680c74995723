import { optionsOf } from "../errors/check-options.js";
import { checkString } from "../errors/check-string.js";
import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import { BatchInputError } from "./batch-input-error.js";
import type { BatchItem, JsonValue } from "./types.js";

/**
 * Decodes a batch input file's bytes as UTF-8, without a leading byte order mark.
 * @throws BatchInputError naming the first line that is not valid UTF-8
 */
export function decodeBatchInput(bytes: Uint8Array): string {
  if (!(bytes instanceof Uint8Array)) {
    throw new InvalidArgumentError({
      parameter: "bytes",
      value: bytes,
      expected: "be the file's bytes (a Uint8Array)",
    });
  }
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch (error) {
    let line = 1;
    let start = 0;
    const strict = new TextDecoder("utf-8", { fatal: true });
    for (let end = 0; end <= bytes.length; end++) {
      if (end < bytes.length && bytes[end] !== 0x0a) continue;
      try {
        strict.decode(bytes.subarray(start, end));
      } catch {
        break;
      }
      line += 1;
      start = end + 1;
    }
    throw new BatchInputError({
      line,
      message:
        "expected UTF-8 text, got bytes that are not UTF-8. Save the file as UTF-8 (iconv -f <encoding> -t UTF-8 in > out).",
      cause: error,
    });
  }
}

/**
 * Parses a JSONL batch input: one JSON object per line with a unique `id` (string, or a number turned into
 * one) and, when `require` names them, string fields such as `query`. Blank lines and a leading byte order
 * mark are skipped.
 * @throws BatchInputError naming the line for a line that is not an object, a missing or duplicate id, or a
 *   missing required field
 * @example parseBatchItems('{"id":"q1","query":"What is compact mode?"}\n', { require: ["query"] })
 */
export function parseBatchItems(
  text: string,
  options: {
    require?: readonly string[];
    /** Called for each item; what it throws becomes a {@link BatchInputError} naming the line. */
    check?: (item: BatchItem, line: number) => void;
  } = {},
): BatchItem[] {
  const { require = [], check } = optionsOf("options", options, "{ require?, check? }");
  checkString("text", text);
  const items: BatchItem[] = [];
  const seen = new Map<string, number>();
  // A byte order mark (Windows editors write one) is not part of the first line's JSON.
  const lines = (text.startsWith("\uFEFF") ? text.slice(1) : text).split("\n");
  for (const [index, raw] of lines.entries()) {
    const line = index + 1;
    if (raw.trim() === "") continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (error) {
      throw new BatchInputError({
        line,
        message: `expected one JSON object per line, got text that is not JSON (${(error as Error).message}). Write each item as {"id": "…", "query": "…"} on its own line.`,
        cause: error,
      });
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      throw new BatchInputError({
        line,
        message: `expected a JSON object like {"id": "q1", "query": "…"}, got ${Array.isArray(parsed) ? "an array" : JSON.stringify(parsed)}.`,
      });
    }
    const record = parsed as Record<string, JsonValue>;
    const id = record.id;
    if (!(typeof id === "string" && id !== "") && !(typeof id === "number" && Number.isFinite(id))) {
      throw new BatchInputError({
        line,
        message: `expected a non-empty string or number \`id\`, got ${id === undefined ? "none" : JSON.stringify(id)}. Every item needs an id unique in the file; results are keyed by it.`,
      });
    }
    const key = String(id);
    const first = seen.get(key);
    if (first !== undefined) {
      throw new BatchInputError({
        line,
        message: `id "${key}" was already used on line ${first}. Ids must be unique: a rerun skips items by id.`,
      });
    }
    seen.set(key, line);
    for (const field of require) {
      const value = record[field];
      if (typeof value !== "string" || value.trim() === "") {
        throw new BatchInputError({
          line,
          message: `item "${key}" needs a non-empty string \`${field}\`, got ${value === undefined ? "none" : JSON.stringify(value)}.`,
        });
      }
    }
    const item = { ...record, id: key };
    if (check) {
      try {
        check(item, line);
      } catch (error) {
        throw new BatchInputError({ line, message: (error as Error).message, cause: error });
      }
    }
    items.push(item);
  }
  return items;
}
