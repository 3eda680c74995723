// A digest of a SQLite index's content, to check that a change to the build leaves the chunks as they were:
// `node scripts/index-digest.mjs <cache folder> [dump file]` prints the chunk count and one SHA-256 over every
// chunk (by source position and chunk position: node id, source, content hash, length, image flag and the hash of
// its decoded node JSON: text, metadata, location), every source row, the stats, the meta and every term's
// postings (as node id, term frequency and length, so chunk keys and block boundaries do not count). Build the same
// folder with two builds and compare the two lines; with a dump file, `diff` the dumps to see what moved.
import { createHash } from "node:crypto";
import { closeSync, openSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { inflateRawSync } from "node:zlib";

const require = createRequire(import.meta.url);
const Database = require("better-sqlite3");
const [folder, dumpFile] = process.argv.slice(2);
if (!folder) {
  console.error("usage: node scripts/index-digest.mjs <cache folder> [dump file]");
  process.exit(2);
}
const db = new Database(join(folder, "ragsynth-index.sqlite"), { readonly: true });
const sha = (text) => createHash("sha256").update(text).digest("hex");
// Each line goes into the digest (and the dump) as it is made: a large index's lines do not fit one string.
const digest = createHash("sha256");
const dump = dumpFile ? openSync(dumpFile, "w") : undefined;
const lines = {
  push(line) {
    digest.update(`${line}\n`);
    if (dump !== undefined) writeSync(dump, `${line}\n`);
  },
};
const nodeIdOf = new Map();
const chunks = db
  .prepare(
    `SELECT c.key, c.node_id, c.source_id, c.position, c.content_hash, c.length, c.is_image, c.node
     FROM chunks c LEFT JOIN sources s ON s.id = c.source_id ORDER BY s.position, c.position, c.node_id`,
  )
  .all();
for (const chunk of chunks) {
  nodeIdOf.set(chunk.key, chunk.node_id);
  const node = inflateRawSync(chunk.node).toString("utf8");
  lines.push(
    `chunk ${chunk.node_id} ${chunk.source_id} ${chunk.position} ${chunk.content_hash} ${chunk.length} ${chunk.is_image} ${sha(node)}`,
  );
}
for (const source of db.prepare("SELECT * FROM sources ORDER BY position").all())
  lines.push(`source ${JSON.stringify(source)}`);
lines.push(`stats ${JSON.stringify(db.prepare("SELECT documents, total_length FROM stats").get())}`);
lines.push(`meta ${JSON.stringify(db.prepare("SELECT key, value FROM meta ORDER BY key").all())}`);

// Blocks are varints: key gap, term frequency, chunk length per posting (src/store/postings-codec.ts).
function varints(bytes) {
  const values = [];
  let value = 0;
  let scale = 1;
  for (const byte of bytes) {
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) {
      values.push(value);
      value = 0;
      scale = 1;
    } else scale *= 0x80;
  }
  return values;
}
const postings = new Map();
for (const row of db.prepare("SELECT term, block FROM postings ORDER BY term, first_key").iterate()) {
  const values = varints(row.block);
  const list = postings.get(row.term) ?? [];
  let key = 0;
  for (let index = 0; index < values.length; index += 3) {
    key += values[index];
    list.push(`${nodeIdOf.get(key)}:${values[index + 1]}:${values[index + 2]}`);
  }
  postings.set(row.term, list);
}
for (const term of [...postings.keys()].sort())
  lines.push(`postings ${JSON.stringify(term)} ${postings.get(term).sort().join(",")}`);
db.close();
if (dump !== undefined) closeSync(dump);
console.log(`chunks ${chunks.length} terms ${postings.size} digest ${digest.digest("hex")}`);
