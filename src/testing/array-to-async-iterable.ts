/**
 * Yields the values one by one as an `AsyncIterable`, for fake streams in tests.
 * @example
 * for await (const delta of convertArrayToAsyncIterable(["Hel", "lo"])) process.stdout.write(delta);
 */
export async function* convertArrayToAsyncIterable<T>(
  values: readonly T[],
): AsyncGenerator<T, void, undefined> {
  for (const value of values) yield value;
}
