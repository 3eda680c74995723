// Starts split-worker.ts from the TypeScript sources (the tests run them; Node 20 runs no .ts file itself) through
// tsx, a development dependency. The package starts its bundled dist/index-store/split-worker.js instead.
import { workerData } from "node:worker_threads";
import { tsImport } from "tsx/esm/api";

await tsImport(workerData.sourceEntry, import.meta.url);
