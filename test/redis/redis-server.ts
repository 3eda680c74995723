import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A redis-server started for tests, on 127.0.0.1, its data in a temporary folder. */
export interface TestRedisServer {
  url: string;
  port: number;
  dir: string;
  process: ChildProcess;
  /** Stops it (SIGTERM, so the append-only file is flushed) and waits for the exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port and folder (the append-only file brings the data back). */
  restart(): Promise<TestRedisServer>;
  /** Stops it and removes its folder. */
  dispose(): Promise<void>;
}

/** The redis-server binary: `RAGSYNTH_REDIS_SERVER`, else `redis-server` when it is on the PATH. */
export function redisServerBinary(): string | undefined {
  const named = process.env.RAGSYNTH_REDIS_SERVER;
  if (named) return named;
  try {
    execFileSync("redis-server", ["--version"], { stdio: "ignore" });
    return "redis-server";
  } catch {
    return undefined;
  }
}

const WATCHDOG =
  '"$@" & r=$!; trap "kill $r; wait $r; exit" TERM; ' +
  "while kill -0 $PPID 2>/dev/null && kill -0 $r 2>/dev/null; do sleep 0.3; done; kill $r 2>/dev/null; wait $r";

/** A TCP port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** Starts redis-server with `appendonly yes` and no RDB snapshots; resolves once it accepts connections. */
export async function startRedisServer({
  binary = redisServerBinary(),
  port,
  dir,
  password,
}: {
  binary?: string | undefined;
  port?: number;
  dir?: string;
  /** Requires this password (`--requirepass`); `url` then carries it. */
  password?: string;
} = {}): Promise<TestRedisServer> {
  if (!binary) throw new Error("redis-server is not installed (apt-get install redis-server).");
  const folder = dir ?? (await mkdtemp(join(tmpdir(), "ragsynth-redis-")));
  const chosenPort = port ?? (await freePort());
  const args = [
    "--port",
    String(chosenPort),
    "--bind",
    "127.0.0.1",
    "--dir",
    folder,
    "--appendonly",
    "yes",
    "--appendfsync",
    "always",
    "--save",
    "",
    "--maxmemory-policy",
    "noeviction",
    ...(password ? ["--requirepass", password] : []),
  ];
  // A small shell watchdog stops redis-server when the test process dies without tearing down (killed).
  const child = spawn("sh", ["-c", WATCHDOG, "sh", binary, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("Ready to accept connections")) resolve();
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`redis-server exited (${code}): ${output.slice(-500)}`)));
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const server: TestRedisServer = {
    url: password ? `redis://:${password}@127.0.0.1:${chosenPort}` : `redis://127.0.0.1:${chosenPort}`,
    port: chosenPort,
    dir: folder,
    process: child,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
    async restart() {
      await server.stop();
      return startRedisServer({
        binary,
        port: chosenPort,
        dir: folder,
        ...(password ? { password } : {}),
      });
    },
    async dispose() {
      await server.stop();
      await rm(folder, { recursive: true, force: true });
    },
  };
  return server;
}
