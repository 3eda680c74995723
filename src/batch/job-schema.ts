import { InvalidArgumentError } from "../errors/invalid-argument-error.js";
import type { JobData } from "./job-data.js";

/** The most bytes (as JSON) a job's data may hold; a question and its prompt overrides fit many times over. */
export const MAX_JOB_BYTES = 1_048_576;
/** The longest run id and item id. */
export const MAX_ID_LENGTH = 512;

const JOB_FIELDS = new Set(["runId", "kind", "config", "item", "tokensPerMinute", "routeCalls"]);

/**
 * Checks what a job taken from the queue carries before anything reads it: the queue is untrusted input, as a
 * questions file is. Only the known fields, of the right types and sizes; the work kind's own settings and item
 * fields are checked by its processor.
 * @throws InvalidArgumentError naming the field, what was expected and what arrived
 */
export function validateJobData(
  data: unknown,
  { maxBytes = MAX_JOB_BYTES }: { maxBytes?: number } = {},
): JobData {
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new InvalidArgumentError({ parameter: "job.data", value: data, expected: "be an object" });
  }
  const bytes = Buffer.byteLength(JSON.stringify(data) ?? "", "utf8");
  if (bytes > maxBytes) {
    throw new InvalidArgumentError({
      parameter: "job.data",
      value: `${bytes} bytes`,
      expected: `hold at most ${maxBytes} bytes as JSON`,
    });
  }
  const record = data as Record<string, unknown>;
  for (const field of Object.keys(record)) {
    if (!JOB_FIELDS.has(field)) {
      throw new InvalidArgumentError({
        parameter: `job.data.${field}`,
        value: record[field],
        expected: `not be there (a job holds ${[...JOB_FIELDS].join(", ")})`,
      });
    }
  }
  checkId("job.data.runId", record.runId);
  if (typeof record.kind !== "string" || record.kind === "" || record.kind.length > 64) {
    throw new InvalidArgumentError({
      parameter: "job.data.kind",
      value: record.kind,
      expected: "be a work kind's name (a string of 1–64 characters)",
    });
  }
  const item = record.item;
  if (typeof item !== "object" || item === null || Array.isArray(item)) {
    throw new InvalidArgumentError({ parameter: "job.data.item", value: item, expected: "be an object" });
  }
  checkId("job.data.item.id", (item as Record<string, unknown>).id);
  const { tokensPerMinute, routeCalls } = record;
  if (
    tokensPerMinute !== undefined &&
    !(typeof tokensPerMinute === "number" && Number.isFinite(tokensPerMinute) && tokensPerMinute > 0)
  ) {
    throw new InvalidArgumentError({
      parameter: "job.data.tokensPerMinute",
      value: tokensPerMinute,
      expected: "be a positive number",
    });
  }
  if (routeCalls !== undefined && typeof routeCalls !== "boolean") {
    throw new InvalidArgumentError({
      parameter: "job.data.routeCalls",
      value: routeCalls,
      expected: "be a boolean",
    });
  }
  return data as JobData;
}

function checkId(parameter: string, value: unknown): void {
  if (typeof value !== "string" || value === "" || value.length > MAX_ID_LENGTH) {
    throw new InvalidArgumentError({
      parameter,
      value,
      expected: `be a non-empty string of at most ${MAX_ID_LENGTH} characters`,
    });
  }
}
