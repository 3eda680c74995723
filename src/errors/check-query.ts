import { InvalidArgumentError } from "./invalid-argument-error.js";

/**
 * Throws an {@link InvalidArgumentError} unless `query` is a non-empty string (not only white space):
 * the one check of a query for the query engine and the postprocessors that need one.
 * @param hint how to pass a query where this check runs (``Pass the question as query({ query: "…" }).``)
 */
export function checkQuery(query: unknown, hint: string): asserts query is string {
  if (typeof query !== "string" || query.trim() === "") {
    throw new InvalidArgumentError({
      parameter: "query",
      value: query,
      expected: "be a non-empty string",
      hint,
    });
  }
}
