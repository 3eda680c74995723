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

/**
 * Throws an {@link InvalidArgumentError} unless `options` is an object whose `query` is a string: for plain
 * JavaScript callers of a retriever or a query engine, whose `retrieve("question")` or `query()` would otherwise
 * destructure nothing and fail with a TypeError or a misleading "got undefined".
 * @param hint how to pass a query where this check runs (``Pass the question as retrieve({ query: "…" }).``)
 */
export function checkQueryOptions(options: unknown, hint: string): asserts options is { query: string } {
  if (typeof options !== "object" || options === null) {
    throw new InvalidArgumentError({
      parameter: "options",
      value: options,
      expected: "be an object with the question as `query`",
      hint,
    });
  }
  const { query } = options as { query?: unknown };
  if (typeof query !== "string") {
    throw new InvalidArgumentError({ parameter: "query", value: query, expected: "be a string", hint });
  }
}
