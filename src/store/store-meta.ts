import type { StoreMeta } from "./index-store.js";

/** The `meta` table's rows as a {@link StoreMeta}; `undefined` for a store that has none yet (never built). */
export function storeMetaOf(values: ReadonlyMap<string, string>): StoreMeta | undefined {
  const embedderId = values.get("embedderId");
  if (embedderId === undefined) return undefined;
  return {
    embedderId,
    storeVectors: values.get("storeVectors") === "1",
    analyzer: Number(values.get("analyzer")),
    splitter: values.get("splitter") ?? "",
  };
}
