import { describeValue } from "../errors/describe-value.js";
import { RagsynthError } from "../errors/ragsynth-error.js";

/**
 * What `LexicalIndex.toJSON` writes: document ids and lengths by slot, and per term its postings as
 * `[slotDelta, tf, slotDelta, tf, …]` (the first slot absolute, then gaps), so the JSON stays small.
 */
export interface SerializedLexicalIndex {
  format: "ragsynth-bm25";
  version: 1;
  k1: number;
  b: number;
  ids: string[];
  lengths: number[];
  terms: string[];
  postings: number[][];
}

/**
 * Checks parsed JSON before it becomes an index, so a damaged file fails with a message rather than with
 * wrong scores.
 * @throws RagsynthError `index_load`
 */
export function readSerializedLexicalIndex(value: unknown): SerializedLexicalIndex {
  const data = value as Partial<SerializedLexicalIndex> | null;
  const fail = (what: string, got: unknown): never => {
    throw new RagsynthError({
      code: "index_load",
      message: `Expected a serialized lexical index (format "ragsynth-bm25", version 1) with ${what}, got ${describeValue(got)}. Rebuild the index (the CLI's --rebuild, or LexicalIndex.toJSON again).`,
    });
  };
  if (typeof data !== "object" || data === null) return fail("an object", data);
  if (data.format !== "ragsynth-bm25" || data.version !== 1) return fail("that format", data.format);
  const { ids } = checkDocuments(data, fail);
  const { terms, postings } = data;
  if (!Array.isArray(terms) || !terms.every((term) => typeof term === "string"))
    return fail("string terms", terms);
  if (!Array.isArray(postings) || postings.length !== terms.length) {
    return fail(`${terms.length} posting lists`, postings);
  }
  postings.forEach((list, index) => {
    if (!Array.isArray(list) || list.length === 0 || list.length % 2 !== 0 || !list.every(isCount)) {
      fail(`posting list ${index} as [slotDelta, tf, …] integers`, list);
    }
    let slot = -1;
    for (let position = 0; position < list.length; position += 2) {
      slot = position === 0 ? (list[0] as number) : slot + (list[position] as number);
      if (slot >= ids.length || (position > 0 && list[position] === 0) || list[position + 1] === 0) {
        fail(`posting list ${index} inside ${ids.length} documents`, list);
      }
    }
  });
  return data as SerializedLexicalIndex;
}

/** Checks what both serializations share: `k1`, `b`, distinct string ids and their integer lengths. */
function checkDocuments(
  data: { k1?: unknown; b?: unknown; ids?: unknown; lengths?: unknown },
  fail: (what: string, got: unknown) => never,
): LexicalLinesHeader {
  const { k1, b, ids, lengths } = data;
  if (!isFiniteNonNegative(k1)) return fail("a finite k1 ≥ 0", k1);
  if (!(isFiniteNonNegative(b) && b <= 1)) return fail("b between 0 and 1", b);
  if (!Array.isArray(ids) || !ids.every((id) => typeof id === "string")) return fail("string ids", ids);
  if (new Set(ids).size !== ids.length) return fail("distinct ids", ids.length);
  if (!Array.isArray(lengths) || lengths.length !== ids.length || !lengths.every(isCount)) {
    return fail(`${ids.length} integer lengths`, lengths);
  }
  return { k1, b, ids, lengths };
}

/** The header line of {@link LexicalIndex.toJSONLines}. */
interface LexicalLinesHeader {
  k1: number;
  b: number;
  ids: string[];
  lengths: number[];
}

function lexicalLoadError(what: string, got: unknown): RagsynthError {
  return new RagsynthError({
    code: "index_load",
    message: `Expected a lexical index in JSON Lines (format "ragsynth-bm25-lines", version 1) with ${what}, got ${describeValue(got)}. Rebuild the index (the CLI's --rebuild).`,
  });
}

/**
 * Checks the header line of a lexical index in JSON Lines, and that `termLines` lines follow it.
 * @throws RagsynthError `index_load`
 */
export function readLexicalLinesHeader(value: unknown, termLines: number): LexicalLinesHeader {
  const data = value as
    | (LexicalLinesHeader & { format?: unknown; version?: unknown; terms?: unknown })
    | null;
  const fail = (what: string, got: unknown): never => {
    throw lexicalLoadError(what, got);
  };
  if (typeof data !== "object" || data === null) return fail("an object", data);
  if (data.format !== "ragsynth-bm25-lines" || data.version !== 1) return fail("that format", data.format);
  checkDocuments(data, fail);
  if (data.terms !== termLines) return fail(`${String(data.terms)} term lines`, termLines);
  return data;
}

/**
 * Checks one term line, `["term",[slot, tf, slotDelta, tf, …]]`, and decodes its slots in place.
 * @throws RagsynthError `index_load`
 */
export function readLexicalTermLine(
  value: unknown,
  position: number | string,
  documents: number,
): [string, number[]] {
  const line = value as [unknown, unknown];
  const list = Array.isArray(line) ? line[1] : undefined;
  if (
    !Array.isArray(line) ||
    line.length !== 2 ||
    typeof line[0] !== "string" ||
    !Array.isArray(list) ||
    list.length === 0 ||
    list.length % 2 !== 0
  ) {
    throw lexicalLoadError(`term line ${position} as ["term", [slot, tf, …]]`, value);
  }
  let slot = -1;
  for (let index = 0; index < list.length; index += 2) {
    const gap = list[index];
    const tf = list[index + 1];
    if (!isCount(gap) || !isCount(tf) || tf === 0 || (index > 0 && gap === 0)) {
      throw lexicalLoadError(`term line ${position} as positive integer [slot, tf, …] pairs`, list);
    }
    slot = index === 0 ? gap : slot + gap;
    if (slot >= documents)
      throw lexicalLoadError(`term line ${position} inside ${documents} documents`, list);
    list[index] = slot;
  }
  return [line[0], list];
}

/**
 * The term of a raw term line, `["term",[…]]`, read without parsing the line (its postings are parsed and
 * checked by {@link readRawTermLine} when first used).
 * @throws RagsynthError `index_load` when the line does not start with a JSON string term or is cut short
 */
export function lexicalTermOf(line: string, position: number): string {
  let end = -1;
  if (line.startsWith('["')) {
    for (let index = 2; index < line.length; index++) {
      const char = line.charCodeAt(index);
      if (char === 0x5c) index++;
      else if (char === 0x22) {
        end = index;
        break;
      }
    }
  }
  const fail = () => lexicalLoadError(`term line ${position} as ["term", [slot, tf, …]]`, line.slice(0, 80));
  if (end === -1 || line[end + 1] !== "," || !line.endsWith("]]")) throw fail();
  const quoted = line.slice(1, end + 1);
  if (!quoted.includes("\\")) return quoted.slice(1, -1);
  try {
    return JSON.parse(quoted) as string;
  } catch {
    throw fail();
  }
}

/**
 * Parses and checks the raw line of `term` (one {@link lexicalTermOf} read), decoding its slots.
 * @throws RagsynthError `index_load` when it is not JSON or not a valid term line for `term`
 */
export function readRawTermLine(line: string, term: string, documents: number): number[] {
  const where = JSON.stringify(term);
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw lexicalLoadError(`term line ${where} as ["term", [slot, tf, …]]`, line.slice(0, 80));
  }
  const [parsedTerm, list] = readLexicalTermLine(value, where, documents);
  if (parsedTerm !== term) throw lexicalLoadError(`term line ${where} for that term`, parsedTerm);
  return list;
}

function isFiniteNonNegative(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0;
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}
