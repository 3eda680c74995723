import { ReaderSkipError } from "./types.js";

/**
 * The `ReaderSkipError` that reading throws; any other error is thrown on, and a read that throws nothing fails the
 * test ("no skip").
 */
export async function skipOf(read: () => Promise<unknown>): Promise<ReaderSkipError> {
  try {
    await read();
  } catch (error) {
    if (ReaderSkipError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("no skip");
}
