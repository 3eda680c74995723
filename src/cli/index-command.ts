import { type FolderIndexStats, refreshFolderIndex } from "../index-store/folder-index.js";
import { isPostgresUrl } from "../store/open-postgres-store.js";
import { displayPath } from "../util/display-path.js";
import type { IndexOptions } from "./command-options.js";
import { formatDuration, plural } from "./format.js";
import { type CommandContext, writeJSON } from "./io.js";
import { chooseEmbedder } from "./models.js";
import { folderIndexOptions } from "./open-index.js";
import { createProgress } from "./progress.js";
import { reportReadCounts } from "./read-report.js";
import { EXIT_OK } from "./usage-error.js";

/** "Indexed 6 files (1 changed, 5 unchanged): 8 chunks, 2 embedded, 6 reused, in 0.31 s · cache … · embedding model". */
export function indexSummary(stats: FolderIndexStats, embedderId: string, cwd: string): string {
  const { added, changed, unchanged, removed } = stats.sources;
  const changes = [
    changed.length > 0 ? `${changed.length} changed` : "",
    unchanged.length > 0 && unchanged.length < stats.files ? `${unchanged.length} unchanged` : "",
    added.length > 0 && added.length < stats.files ? `${added.length} new` : "",
    removed.length > 0 ? `${removed.length} removed` : "",
  ].filter(Boolean);
  return (
    `Indexed ${plural(stats.files, "file")}${changes.length > 0 ? ` (${changes.join(", ")})` : ""}: ` +
    `${plural(stats.chunks, "chunk")}, ${stats.embedded + stats.reused > 0 ? `${stats.embedded} embedded, ${stats.reused} reused, ` : ""}in ${formatDuration(stats.durationMs)}` +
    ` · cache ${isPostgresUrl(stats.cacheDir) ? stats.cacheDir : displayPath(stats.cacheDir, cwd)} · ${embedderId}`
  );
}

/** `ragsynth index`: read, split and embed the files, and keep the index in the cache dir. */
export async function runIndex(options: IndexOptions, { io, signal }: CommandContext): Promise<number> {
  const progress = createProgress({ enabled: io.stderrIsTTY, sink: io.stderr, columns: io.columns });
  try {
    const embed = chooseEmbedder(options.embed, io.env, options.timeoutMs);
    const opened = await refreshFolderIndex(
      await folderIndexOptions({ ...options, embed }, { io, signal }, progress),
    );
    progress.clear();
    reportReadCounts(opened.stats, io, { verbose: options.verbose, always: true });
    if (options.json) {
      writeJSON(io, { command: "index", embed: { id: opened.embedModel.id }, ...opened.stats });
    } else {
      io.stdout.write(`${indexSummary(opened.stats, opened.embedModel.id, io.cwd)}\n`);
    }
    return EXIT_OK;
  } finally {
    progress.clear();
  }
}
