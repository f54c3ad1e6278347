/**
 * Timestamps for formats that need one on every record (oneshot, codex-thread, aaep) when our
 * events carry `time` only if the agent said so (or `run` received them: under `run` every event has
 * one). The rule, the same in all three and documented in docs/events.md and each docs/formats page:
 * an event without `time` gets the last time seen in the stream (so sorting by time keeps the order);
 * before any time is known, the time the writer reads it. The Unix epoch is never written: a reader
 * could not tell it from a real time, and the seeds define these fields as when the event was received.
 */

/** Milliseconds since the epoch for each record, carried forward across events without a time. */
export interface Clock {
  /** The time of an event in ms: its own when valid, else the last one seen, else now. */
  ms(time: string | undefined): number;
  /** The event's own time in ms; NaN when it has none or it is not a time. */
  own(time: string | undefined): number;
}

/** Creates a clock for one stream; `now` is the writer's clock (a parameter for tests). */
export function createClock(now: () => number = Date.now): Clock {
  let last: number | undefined;
  // Events of one chunk of output share one time (`run`'s receipt time): it is parsed once.
  let parsedText: string | undefined;
  let parsed = Number.NaN;
  const own = (time: string | undefined): number => {
    if (time === undefined) return Number.NaN;
    if (time !== parsedText) {
      parsedText = time;
      parsed = Date.parse(time);
    }
    return parsed;
  };
  return {
    own,
    ms(time) {
      const ms = own(time);
      if (Number.isFinite(ms)) last = ms;
      return last ?? now();
    },
  };
}

/** RFC 3339 in UTC with milliseconds (`2026-01-02T03:04:05.678Z`). */
export function isoUtc(ms: number): string {
  return new Date(ms).toISOString();
}
