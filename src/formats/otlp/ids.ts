/**
 * Span and trace ids derived from the session, so exporting the same session twice gives the same ids (docs/otel.md:
 * a backend that keys spans by id keeps one copy or overwrites it). Not cryptographic: the ids only need to spread well
 * and be the same on every run; the core has no Node crypto (it runs in browsers), so this is a small hash of its own.
 */

const LANE_SEEDS = [0x811c9dc5, 0x01000193, 0x9e3779b9, 0x85ebca6b] as const;

/** FNV-1a over the UTF-16 code units from `seed`, then murmur3's finalizer so nearby keys differ in every bit. */
function lane(text: string, seed: number): number {
  let hash = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

function hexOf(text: string, lanes: number): string {
  let out = "";
  for (let i = 0; i < lanes; i++)
    out += lane(text, LANE_SEEDS[i] ?? 0)
      .toString(16)
      .padStart(8, "0");
  // An all-zero id is invalid in OTLP; one hash in 2^64 would give it.
  return /^0+$/.test(out) ? `${out.slice(0, -1)}1` : out;
}

/** The 16-byte trace id (32 hex digits) of the session whose root id is `rootKey`. */
export function traceIdOf(rootKey: string): string {
  return hexOf(`trace\u0000${rootKey}`, 4);
}

/** The 8-byte span id (16 hex digits) of the span named by `spanKey` in the trace of `rootKey`. */
export function spanIdOf(rootKey: string, spanKey: string): string {
  return hexOf(`span\u0000${rootKey}\u0000${spanKey}`, 2);
}
