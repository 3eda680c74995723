import type * as OtelApi from "@opentelemetry/api";

type Api = typeof OtelApi;

let api: Api | undefined;
let loading: Promise<Api> | undefined;

/**
 * Where `@opentelemetry/api` (major version 1) keeps its process-wide registrations (tracer provider, context
 * manager, propagator, diag logger). It exists only once something registered one, which needs the API loaded.
 */
const OTEL_GLOBAL = Symbol.for("opentelemetry.js.api.1");

/**
 * Loads `@opentelemetry/api` when tracing can record anything: a tracer was passed in, or an SDK registered a
 * global provider. Otherwise spans are no-ops and the API is never loaded, so `import("ragsynth")` and an
 * untraced run pay nothing for it. Every traced entry point (synthesize, query, rerank) awaits this first.
 */
export async function prepareTracing(injected: boolean): Promise<void> {
  if (api || (!injected && !(OTEL_GLOBAL in globalThis))) return;
  loading ??= import("@opentelemetry/api");
  api = await loading;
}

/** The loaded API, or undefined while no tracing has been prepared (spans are then no-ops). */
export function otelApi(): Api | undefined {
  return api;
}
