#!/usr/bin/env node
import { startOtlpExport } from "../tracing/otlp-export.js";
import { loadCli } from "./load-cli.js";
import { terminalSink } from "./terminal-text.js";

const argv = process.argv.slice(2);
const { cli, save } = await loadCli(argv, process.env);
// With OTEL_EXPORTER_OTLP_ENDPOINT set, spans go to the collector; they are flushed before the process ends. Its
// warnings quote the collector's replies: written as the CLI's other output is (terminal-text.ts).
const telemetry = await startOtlpExport(process.env, terminalSink(process.stderr));
process.exitCode = await cli.main(argv);
save({ wider: cli.indexUpdated?.() === true });
await telemetry?.shutdown();
