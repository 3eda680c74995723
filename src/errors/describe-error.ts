/** Node's file-system errors (`ENOENT`, `EACCES`, …) as a sentence naming the path; undefined for any other error. */
export function systemErrorMessage(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, path: given } = error as NodeJS.ErrnoException;
  const path = given ? ` ${given}` : "";
  switch (code) {
    case "ENOENT":
      return `No such file or folder:${path}. Check the path.`;
    case "EACCES":
    case "EPERM":
      return `Permission denied:${path}. Check the file's permissions.`;
    case "EISDIR":
      return `Expected a file but found a folder:${path}.`;
    case "ENOSPC":
      return `No space left on the device while writing${path}.`;
    default:
      return undefined;
  }
}

/** The error's stack, then each cause's as `Caused by: …` (at most 8 deep): the detail of a verbose report. */
export function causeChain(error: unknown): string[] {
  const lines: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && depth < 8; depth++) {
    if (current instanceof Error) {
      lines.push(
        depth === 0 ? (current.stack ?? String(current)) : `Caused by: ${current.stack ?? String(current)}`,
      );
      current = current.cause;
    } else {
      lines.push(`${depth === 0 ? "" : "Caused by: "}${String(current)}`);
      break;
    }
  }
  return lines;
}

/** `message` on one line, then `hint` (unless the message already says it), with a full stop between. */
export function withHint(message: string, hint: string | undefined): string {
  const text = message.replace(/\s*\n\s*/g, " ").trim();
  if (!hint || text.includes(hint)) return text;
  return `${/[.!?]$/.test(text) ? text : `${text}.`} ${hint}`;
}
