// Whether this process updated an index (read, split and wrote a changed or new document): the CLI's compiled-code
// cache for the command is then written again once, wider (src/cli/load-cli.ts), so that it holds that code too.
// Process state, as the CLI runs one command per process.

let updated = false;

/** Notes whether a folder index's build wrote a changed or new document (its `sources` stats). */
export function noteIndexBuild(stats: {
  sources: { added: readonly string[]; changed: readonly string[] };
}): void {
  if (stats.sources.added.length + stats.sources.changed.length > 0) updated = true;
}

/** Whether a build {@link noteIndexBuild} was told of wrote a document, in this process. */
export function indexUpdated(): boolean {
  return updated;
}
