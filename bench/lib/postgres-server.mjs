// A PostgreSQL server for the bench's PostgreSQL figure: RAGSYNTH_BENCH_POSTGRES_URL when set, else a throwaway
// cluster of Debian's server package (initdb in a temporary folder, trust auth, the server's default settings, so
// commits are synced as in production; 127.0.0.1 on a free port), as .ci/run starts one for the tests (there with
// fsync off), stopped by its postmaster's PID. As root the server runs as the
// package's postgres user (it refuses root).
import { execFileSync, spawn } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The newest Debian PostgreSQL server's bin folder, or undefined. */
function serverBin() {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => existsSync(join(root, name, "bin", "postgres")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], "bin");
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * `{ url, version, stop }`, or `{ missing }` (why there is none: the figure says it). The URL names no schema.
 */
export async function startPostgres() {
  const given = process.env.RAGSYNTH_BENCH_POSTGRES_URL?.trim();
  if (given) return { url: given, version: "given by RAGSYNTH_BENCH_POSTGRES_URL", stop: async () => {} };
  const bin = serverBin();
  if (!bin) {
    return {
      missing:
        "no PostgreSQL server: install Debian's postgresql-15 (the bench starts a throwaway cluster) or set RAGSYNTH_BENCH_POSTGRES_URL",
    };
  }
  const dir = mkdtempSync(join(tmpdir(), "bench-postgres-"));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chownSync(dir, Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" })), 0);
  const run = (command, args) =>
    asRoot ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, args];
  const [initdb, initdbArgs] = run(join(bin, "initdb"), [
    "-D",
    join(dir, "data"),
    "-U",
    "ragsynth",
    "--auth=trust",
    "-E",
    "UTF8",
  ]);
  execFileSync(initdb, initdbArgs, { stdio: "ignore" });
  const port = await freePort();
  const [postgres, postgresArgs] = run(join(bin, "postgres"), [
    "-D",
    join(dir, "data"),
    "-h",
    "127.0.0.1",
    "-p",
    String(port),
    "-k",
    dir,
  ]);
  const server = spawn(postgres, postgresArgs, { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  server.stderr.on("data", (chunk) => {
    log += chunk;
  });
  const deadline = Date.now() + 15_000;
  while (!log.includes("ready to accept connections")) {
    if (Date.now() > deadline || server.exitCode !== null) {
      server.kill();
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`PostgreSQL did not start: ${log.slice(-400)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const version = `${bin.split("/").at(-2)} (Debian's package, a throwaway cluster, default settings)`;
  const stop = async () => {
    // The postmaster's PID (under runuser, the child's is runuser's).
    const pidFile = join(dir, "data", "postmaster.pid");
    if (existsSync(pidFile)) {
      try {
        process.kill(Number(readFileSync(pidFile, "utf8").split("\n")[0]), "SIGTERM");
      } catch {
        // Gone already.
      }
    }
    if (server.exitCode === null) await new Promise((resolve) => server.once("exit", resolve));
    rmSync(dir, { recursive: true, force: true });
  };
  return { url: `postgres://ragsynth@127.0.0.1:${port}/postgres`, version, stop };
}
