import { scrubSecrets } from "../errors/scrub-secrets.js";

/** The OpenTelemetry packages an OTLP export loads; installed next to ragsynth only by those who want export. */
export const OTLP_PACKAGES = [
  "@opentelemetry/sdk-trace-base",
  "@opentelemetry/exporter-trace-otlp-http",
  "@opentelemetry/context-async-hooks",
] as const;

/** How long `shutdown` waits for the last spans to reach the collector. */
const FLUSH_TIMEOUT_MS = 5000;

/** A running export: `shutdown` sends what is batched and stops. */
export interface OtlpExport {
  shutdown(): Promise<void>;
}

/** True when the environment names an OTLP endpoint (the standard variables) and does not disable the SDK. */
export function otlpExportWanted(env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

// Loaded by name at run time: optional packages, absent from most installs.
async function load(name: string): Promise<Record<string, unknown>> {
  return (await import(name)) as Record<string, unknown>;
}

/**
 * When `OTEL_EXPORTER_OTLP_ENDPOINT` (or `…_TRACES_ENDPOINT`) is set, registers an OpenTelemetry SDK that sends
 * the CLI's spans over OTLP/HTTP (the exporter reads the standard variables: endpoint, `OTEL_EXPORTER_OTLP_HEADERS`,
 * …) with async context, so model calls nest under their query. The caller awaits `shutdown()` before the process
 * ends: a batch processor's spans are otherwise lost. Without the SDK packages it says how to install them.
 */
export async function startOtlpExport(
  env: Readonly<Record<string, string | undefined>>,
  stderr: { write(text: string): unknown },
): Promise<OtlpExport | undefined> {
  if (!otlpExportWanted(env)) return undefined;
  let modules: Array<Record<string, unknown>>;
  try {
    modules = await Promise.all([...OTLP_PACKAGES, "@opentelemetry/api"].map(load));
  } catch {
    stderr.write(
      `ragsynth: note: OTEL_EXPORTER_OTLP_ENDPOINT is set, but the OpenTelemetry SDK is not installed, so no spans are exported. ` +
        `Install it next to ragsynth: npm i ${OTLP_PACKAGES.join(" ")}\n`,
    );
    return undefined;
  }
  const [sdk, exporterModule, hooks, api] = modules as [
    typeof import("@opentelemetry/sdk-trace-base"),
    typeof import("@opentelemetry/exporter-trace-otlp-http"),
    typeof import("@opentelemetry/context-async-hooks"),
    typeof import("@opentelemetry/api"),
  ];
  // Export failures are reported once, scrubbed (a header may hold a key), instead of going nowhere.
  let warned = false;
  api.diag.setLogger(
    {
      error: (message: string) => {
        if (warned) return;
        warned = true;
        stderr.write(`ragsynth: warning: OpenTelemetry export: ${scrubSecrets(String(message))}\n`);
      },
      warn: () => {},
      info: () => {},
      debug: () => {},
      verbose: () => {},
    },
    api.DiagLogLevel.ERROR,
  );
  const provider = new sdk.BasicTracerProvider({
    spanProcessors: [new sdk.BatchSpanProcessor(new exporterModule.OTLPTraceExporter())],
  });
  api.context.setGlobalContextManager(new hooks.AsyncLocalStorageContextManager().enable());
  api.trace.setGlobalTracerProvider(provider);
  return {
    async shutdown() {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, FLUSH_TIMEOUT_MS);
        timer.unref();
      });
      await Promise.race([provider.shutdown(), timeout]).finally(() => clearTimeout(timer));
    },
  };
}
