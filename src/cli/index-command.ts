import { refreshFolderIndex } from "../index-store/folder-index.js";
import { indexSummary } from "../index-store/folder-index-stats.js";
import type { IndexOptions } from "./command-options.js";
import { noteIndexBuild } from "./index-updates.js";
import { type CommandContext, writeJSON } from "./io.js";
import { chooseEmbedder } from "./models.js";
import { folderIndexOptions } from "./open-index.js";
import { createProgress } from "./progress.js";
import { reportReadCounts } from "./read-report.js";
import { EXIT_OK } from "./usage-error.js";

/** `ragsynth index`: read, split and embed the files, and keep the index in the cache dir. */
export async function runIndex(options: IndexOptions, { io, signal }: CommandContext): Promise<number> {
  const progress = createProgress({ enabled: io.stderrIsTTY, sink: io.stderr, columns: io.columns });
  try {
    const embed = chooseEmbedder(options.embed, io.env, options.timeoutMs);
    // Another `index` (or an ask that builds) of the same folder running: wait for it, then index what it left.
    const opened = await refreshFolderIndex({
      ...(await folderIndexOptions({ ...options, embed }, { io, signal }, progress)),
      whileAnotherBuilds: "wait",
    });
    progress.clear();
    noteIndexBuild(opened.stats);
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
