/**
 * One signal that aborts as soon as any of `signals` does, with that one's reason: the signal itself when
 * only one is given, `AbortSignal.any` for several, and a signal that never aborts for none. `undefined`
 * entries (an option the caller left out) are skipped. The one way ragsynth merges signals.
 * @example const callSignal = mergeAbortSignals(options.signal, stopper.signal);
 */
export function mergeAbortSignals(...signals: ReadonlyArray<AbortSignal | undefined>): AbortSignal {
  const present = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  if (present.length === 1) return present[0] as AbortSignal;
  return present.length === 0 ? new AbortController().signal : AbortSignal.any(present);
}
