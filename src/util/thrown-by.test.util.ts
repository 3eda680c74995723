/**
 * The error a synchronous call throws, for tests that look at its fields.
 * @throws Error when the call returns instead of throwing
 */
export function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}
