/** Agent timestamps as RFC 3339 times. One copy: Cline, Cursor, OpenCode and Claude's rate limits all write epoch numbers. */

/** The latest time a JavaScript Date holds, in epoch milliseconds. */
const MAX_EPOCH_MS = 8.64e15;

/** Epoch milliseconds → RFC 3339, when it is a plausible time (not negative, within Date's range); else undefined. */
export function isoFromEpochMs(ms: number | undefined): string | undefined {
  if (ms === undefined || ms < 0 || ms > MAX_EPOCH_MS) return undefined;
  return new Date(ms).toISOString();
}

/** Epoch seconds → RFC 3339, when it is a plausible time; else undefined. */
export function isoFromEpochSeconds(seconds: number | undefined): string | undefined {
  return seconds === undefined ? undefined : isoFromEpochMs(seconds * 1000);
}

/** Our writers' "no time yet" (they write the Unix epoch before any time is known). */
const EPOCH_MS = 0;

/**
 * An RFC 3339 timestamp from a format our writers write (AAEP, codex-thread): kept as written, unless it does not
 * parse or is the Unix epoch, which is no time.
 */
export function writtenTime(timestamp: string | undefined): string | undefined {
  if (timestamp === undefined) return undefined;
  const ms = Date.parse(timestamp);
  return Number.isNaN(ms) || ms === EPOCH_MS ? undefined : timestamp;
}
