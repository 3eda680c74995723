import { createRequire } from "node:module";

// node:crypto loads with the first hash, not on import: loading it costs Node 20 about 6 ms (25 M instructions),
// which `import("ragsynth")` and an `ask` over an unchanged index never need.
const require = createRequire(import.meta.url);
let nodeCrypto: typeof import("node:crypto") | undefined;

/** The SHA-256 of a text (as UTF-8) or of bytes, in hex. */
export function sha256Hex(data: string | Uint8Array): string {
  nodeCrypto ??= require("node:crypto") as typeof import("node:crypto");
  return nodeCrypto.createHash("sha256").update(data).digest("hex");
}

/** The HMAC-SHA256 of a text under `key`, in hex (node:crypto loaded on first use, as for {@link sha256Hex}). */
export function hmacSha256Hex(key: string, data: string): string {
  nodeCrypto ??= require("node:crypto") as typeof import("node:crypto");
  return nodeCrypto.createHmac("sha256", key).update(data).digest("hex");
}
