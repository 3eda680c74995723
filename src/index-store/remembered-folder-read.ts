// A folder's index found by its remembered listing alone (`listing-snapshot.ts`): the store's rows are the ones it
// was remembered with (their version, one row, says so) and every folder and rule file it walked keeps its time.
// Nothing is walked, and none of the store's rows of files is read: the index is up to date when every file keeps
// its time, and a few files with new times are listed again and built alone (their rows only), after which the
// listing is remembered again with the rows' new version when this run was their only writer.
import { resolve } from "node:path";
import { builtInReadersFor } from "../reader/formats/registry.js";
import { listDocuments } from "../reader/index.js";
import type { IndexStore } from "../store/index-store.js";
import type { BuildReadDocument } from "./build-index-options.js";
import { storesVectors } from "./check-embed-model.js";
import { listedFolderStats } from "./folder-index-stats.js";
import type { FolderIndexOptions, FolderRead } from "./folder-read-options.js";
import {
  buildSettings,
  givenRoots,
  listedDocumentReader,
  noDocuments,
  versionAfterOwnWrites,
} from "./indexed-folder-read.js";
import { fromSnapshotAtVersion } from "./listing-snapshot.js";
import { listingKey } from "./listing-snapshot-make.js";
import { storeLabel } from "./store-location.js";

/** The key a folder's listing is remembered under: the roots as given and named, the walk, the working folder. */
export function folderListingKey({ paths, cwd, walk }: FolderIndexOptions): string {
  return listingKey({ roots: givenRoots(paths, cwd), walk, cwd });
}

/**
 * The folder's index as its remembered listing finds it on `store` (held open for the queries, or built on when a few
 * files changed); undefined when the store keeps no version of its rows, or when anything else the listing
 * remembers changed: then the folder is listed (`folder-read.ts`).
 */
export async function readRememberedFolder(
  options: FolderIndexOptions,
  folder: string,
  store: IndexStore,
  started: number,
): Promise<FolderRead | undefined> {
  if (!store.sourcesVersion) return undefined;
  const { paths, walk, cwd, signal, embedModel } = options;
  // The version and the chunk count of one state of the store.
  const { sourcesVersion, chunks } = await store.read(async () => ({
    sourcesVersion: await store.sourcesVersion?.(),
    chunks: (await store.statistics()).documents,
  }));
  if (sourcesVersion === undefined) return undefined;
  const { readAs, ...walkOptions } = walk;
  const readers = builtInReadersFor(readAs);
  const found = await fromSnapshotAtVersion(
    folder,
    folderListingKey(options),
    sourcesVersion,
    (files, rootNames) => listDocuments(files, { ...walkOptions, readers, rootNames, signal }),
    {
      roots: givenRoots(paths, cwd).map((root) => root.location),
      started: { wallMs: performance.timeOrigin + started },
    },
  );
  if (!found) return undefined;
  const { listing, ids, namesFrom, changed } = found;
  const report = () => {
    const { skipped, formats } = listing.report();
    return { skipped: skipped.filter((entry) => resolve(namesFrom, entry.path) !== folder), formats };
  };
  // The files listed again are read when the build reaches them; the others only when the store changed under this
  // ask (rebuilt for another model meanwhile) and the build starts over: each document then by its own path.
  const unreadable = new Set<string>();
  const readListed = listedDocumentReader(listing, readAs);
  const readDocument: BuildReadDocument = async (document, options) => {
    const read = await readListed(document, options);
    if (read === undefined) unreadable.add(document.id);
    return read;
  };
  return {
    folder,
    ...buildSettings(options),
    documents: () => listing.documents,
    ...(changed.length > 0 ? { onlyChanged: { documents: changed, ids } } : {}),
    readDocument,
    rebuild: false,
    unchanged:
      changed.length > 0
        ? undefined
        : {
            chunks,
            embedded: 0,
            reused: storesVectors(embedModel) ? chunks : 0,
            sources: { added: [], changed: [], unchanged: ids, removed: [] },
          },
    openStore: store,
    namesFrom,
    stats: (build) =>
      listedFolderStats(build, {
        cacheDir: storeLabel(folder),
        files: ids.length - unreadable.size,
        ...report(),
        remembered: { relisted: changed.length, rowsRead: false },
        started,
      }),
    nothingRead: () => noDocuments(paths, report().skipped),
    keepReadMemory: () => {
      // Remembered again when every file listed again is in the index as listed and the rows' version moved by this
      // run's writes alone (each began where the one before ended): then they are the listing's rows.
      if (changed.length === 0 || unreadable.size > 0) return;
      const version = versionAfterOwnWrites(store, sourcesVersion);
      if (version !== undefined) listing.remember(version);
    },
    forgetOwnIndex: async () => {},
  };
}
