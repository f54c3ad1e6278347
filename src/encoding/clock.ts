/**
 * Timestamps for formats that need one on every record (oneshot, codex-thread, aaep) when our
 * events carry `time` only if the agent said so. The rule, the same in all three and documented in
 * each docs/formats page: an event without `time` gets the last time seen in the stream, and
 * before any time is known the Unix epoch (0), which their readers take back as "no time".
 * Nothing is ever read from the writer's own clock.
 */

/** Milliseconds since the epoch for each record, carried forward across events without a time. */
export interface Clock {
  /** The time of an event in ms: its own when valid, else the last one seen, else 0. */
  ms(time: string | undefined): number;
}

/** Creates a clock for one stream. */
export function createClock(): Clock {
  let last = 0;
  return {
    ms(time) {
      if (time !== undefined) {
        const parsed = Date.parse(time);
        if (Number.isFinite(parsed)) last = parsed;
      }
      return last;
    },
  };
}

/** RFC 3339 in UTC with milliseconds (`2026-01-02T03:04:05.678Z`). */
export function isoUtc(ms: number): string {
  return new Date(ms).toISOString();
}
