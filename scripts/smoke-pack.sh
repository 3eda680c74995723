#!/usr/bin/env bash
# Packs ragsynth as npm would publish it, installs the tarball into an empty project, and uses it the way a
# user does: every entry point (the root and ragsynth/batch before @langchain/core, bullmq or ioredis is installed,
# proving them optional), a synthesis with the test fake, and the `ragsynth` bin offline.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$root" && npm pack --silent --pack-destination "$work" >/dev/null)
cd "$work"
npm init -y >/dev/null
# better-sqlite3 (the index) builds its native addon in its install script, which npm runs only when allowed (in a
# project: .npmrc or package.json's allowScripts; npm refuses --allow-scripts there).
echo "allow-scripts=better-sqlite3" >.npmrc
npm install --silent --no-audit --no-fund ./ragsynth-*.tgz zod@4 >/dev/null
node --input-type=module -e '
const ragsynth = await import("ragsynth");
const { MockLLM } = await import("ragsynth/testing");
const { createSynthesizer } = await import("ragsynth/extend");
if (typeof createSynthesizer !== "function") throw new Error("ragsynth/extend lacks createSynthesizer");
if ("createSynthesizer" in ragsynth) throw new Error("the root export should not hold extension internals");
// ragsynth/batch imports without its optional peers (bullmq, ioredis are loaded on first use) and holds the
// runners the root no longer does.
const batch = await import("ragsynth/batch");
if (typeof batch.createEmbeddedRunner !== "function") throw new Error("ragsynth/batch lacks createEmbeddedRunner");
if ("createBullMQRunner" in ragsynth) throw new Error("the root export should not hold the Redis/BullMQ plumbing");
const response = await ragsynth
  .getResponseSynthesizer({ llm: new MockLLM({ response: "ok" }) })
  .synthesize({ query: "q", nodes: [{ node: new ragsynth.TextNode({ text: "hello" }) }] });
if (response.toString() !== "ok" || response.usage.llmCalls !== 1) throw new Error("packed synthesis failed");
'
# CommonJS callers: Node >= 20.19 can require() an ES module, so a `.cts` file that tsc compiles to require() calls
# loads ragsynth through the exports' "default" condition (Node 20.3-20.18 callers use `await import("ragsynth")`).
cat > consumer.cts <<'CTS'
import ragsynth = require("ragsynth");
import testing = require("ragsynth/testing");
const synthesizer = ragsynth.getResponseSynthesizer({ llm: new testing.MockLLM({ response: "ok from require" }) });
synthesizer
  .synthesize({ query: "q", nodes: [{ node: new ragsynth.TextNode({ text: "hello" }) }] })
  .then((response) => console.log(response.toString()));
CTS
# A TypeScript project on Node has Node's types (ragsynth's declarations name node:fs types such as Stats).
npm install --silent --no-audit --no-fund @types/node@20 >/dev/null
echo '{ "compilerOptions": { "module": "node20", "target": "es2022", "strict": true, "types": ["node"] }, "files": ["consumer.cts"] }' >tsconfig.json
"$root/node_modules/.bin/tsc" -p .
[ "$(node consumer.cjs)" = "ok from require" ] || { echo "smoke-pack: require(\"ragsynth\") from CommonJS failed" >&2; exit 1; }
# The LangChain subpath with its optional peer installed, as a LangChain user has it.
npm install --silent --no-audit --no-fund @langchain/core@1 >/dev/null
node --input-type=module -e '
const { toLangChainRunnable } = await import("ragsynth/langchain");
const { getResponseSynthesizer, TextNode } = await import("ragsynth");
const { MockLLM } = await import("ragsynth/testing");
const runnable = toLangChainRunnable(getResponseSynthesizer({ llm: new MockLLM({ response: "ok" }) }));
const answer = await runnable.invoke({ query: "q", nodes: [{ node: new TextNode({ text: "hello" }) }] });
if (answer !== "ok") throw new Error(`packed ragsynth/langchain answered ${answer}`);
'
mkdir docs && echo "Paris is the capital of France." > docs/a.txt
# The bin keeps V8's compiled code of the CLI in the user's cache folder: the first ask writes it, the next uses it.
export XDG_CACHE_HOME="$work/cache"
answer="$(npx --no-install ragsynth ask docs -q "What is the capital of France?" --report page.html 2>/dev/null)"
grep -q "ragsynth trace" page.html || { echo "smoke-pack: ask --report wrote no trace page" >&2; exit 1; }
ls "$work"/cache/ragsynth/v8/ragsynth-cli-ask-*.v8cache >/dev/null 2>&1 ||
  { echo "smoke-pack: the first ask kept no compiled code of the CLI in $work/cache/ragsynth/v8" >&2; exit 1; }
ls "$work"/cache/ragsynth/v8/piece-counts-cl100k_base-*.v8 >/dev/null 2>&1 ||
  { echo "smoke-pack: the first ask kept no piece counts in $work/cache/ragsynth/v8" >&2; exit 1; }
# An index build's worker threads run dist/index-store/split-worker.js from the installed package, found from the
# CLI's bundle and from the library's chunks: with --threads 1 a thread splits the files (a thread that cannot start
# leaves the build splitting them itself, and it reports 0 threads).
threaded="$(npx --no-install ragsynth index docs --cache-dir "$work/threaded" --threads 1 --json 2>&1)"
case "$threaded" in
  *'"threads": 1'*) ;;
  *) echo "smoke-pack: index --threads 1 split in no thread: $threaded" >&2; exit 1 ;;
esac
node --input-type=module -e '
const { VectorStoreIndex, HashingEmbedder, TextNode } = await import("ragsynth");
const documents = [new TextNode({ id: "a.txt", text: "Paris is the capital of France." })];
const index = await VectorStoreIndex.fromDocumentsCached(documents, {
  cacheDir: `${process.cwd()}/library-threaded`,
  embedModel: new HashingEmbedder(),
  threads: 1,
});
if (index.buildStats.threads !== 1) throw new Error(`the library split in ${index.buildStats.threads ?? 0} threads`);
'
# The bin is one small ES module that runs the CLI's one CommonJS bundle: an ask imports one of ragsynth's
# files as a module (the bin), not the library's chunks. A resolve hook logs every module imported; counts only.
cat > probe.mjs <<'PROBE'
import { register } from "node:module";
const log = JSON.stringify(`${process.cwd()}/loaded.log`);
const hooks = `import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(${log}, result.url + "\\n");
  return result;
}`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`);
PROBE
again="$(NODE_OPTIONS="--import $work/probe.mjs" npx --no-install ragsynth ask docs -q "What is the capital of France?" 2>/dev/null)"
case "$again" in
  *"Paris is the capital of France."*) ;;
  *) echo "smoke-pack: the ask with the cached code answered wrong: $again" >&2; exit 1 ;;
esac
loaded="$(sort -u loaded.log | grep -c "/node_modules/ragsynth/dist/" || true)"
if [ "$loaded" -ne 1 ]; then
  echo "smoke-pack: ask imported $loaded of ragsynth's files as modules, expected 1 (the bin):" >&2
  sort -u loaded.log | grep "/node_modules/ragsynth/dist/" >&2 || true
  exit 1
fi
# The bin with a model: the packed fake OpenAI server (ragsynth/testing) on 127.0.0.1, stopped by its PID. The
# CLI loads the openai SDK on first use (require() inside cli.cjs); twice, so the second run has the cached code.
node --input-type=module -e '
const { startFakeOpenAIServer } = await import("ragsynth/testing");
const server = await startFakeOpenAIServer({ handler: () => "Paris, says the model." });
console.log(server.url);
' >server.url &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 50); do [ -s server.url ] && break; sleep 0.1; done
for run in 1 2; do
  modeled="$(npx --no-install ragsynth ask docs -q "What is the capital of France?" --llm "$(cat server.url)#fake-model" 2>&1)" ||
    { echo "smoke-pack: ask with a model failed (run $run): $modeled" >&2; exit 1; }
  case "$modeled" in
    *"Paris, says the model."*) ;;
    *) echo "smoke-pack: ask with a model answered wrong (run $run): $modeled" >&2; exit 1 ;;
  esac
done
kill "$server_pid"
wait "$server_pid" 2>/dev/null || true
# With source maps on, stack traces name ragsynth's src/ files (the bin then loads the bundle with require()).
traced="$(NODE_OPTIONS=--enable-source-maps npx --no-install ragsynth ask docs -q "What is the capital of France?" \
  --llm "http://127.0.0.1:9/v1#fake-model" --timeout 5 --verbose 2>&1)" && { echo "smoke-pack: ask against a closed port succeeded" >&2; exit 1; }
case "$traced" in
  *"src/util/retry.ts:"*) ;;
  *) echo "smoke-pack: --enable-source-maps gave no src/ lines in the stack trace: $traced" >&2; exit 1 ;;
esac
case "$answer" in
  *"Paris is the capital of France."*) echo "smoke-pack: the packed package imports, synthesizes, answers from its bin and writes a trace page" ;;
  *) echo "smoke-pack: the bin's answer was wrong: $answer" >&2; exit 1 ;;
esac
