/**
 * `--since` and `--until` for search: a day as `sessions` takes it (YYYY-MM-DD or YYYYMMDD, in the time zone), an
 * instant (RFC 3339, `2026-11-30T12:00Z`), or a time ago (`14d`, `2w`, `12h`, `30m`).
 */
import { AgentStreamError } from "../errors.ts";

const UNIT_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** The offset of `timeZone` from UTC at `utcMs`, in ms (positive east of Greenwich). */
function zoneOffset(utcMs: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  }).formatToParts(new Date(utcMs));
  const get = (type: string): number => Number(parts.find((part) => part.type === type)?.value);
  const asUtc = Date.UTC(get("year"), get("month") - 1, get("day"), get("hour"), get("minute"), get("second"));
  return asUtc - Math.floor(utcMs / 1000) * 1000;
}

/** The instant a day starts in `timeZone`. */
function dayStart(year: number, month: number, date: number, timeZone: string): number {
  const guess = Date.UTC(year, month - 1, date);
  const first = guess - zoneOffset(guess, timeZone);
  // Across a change of offset the first guess is off by the change: one more step settles it.
  return guess - zoneOffset(first, timeZone);
}

/**
 * The instant `text` names, as ms since the epoch: for `until`, a day means its end. A form it is not, or a day no
 * calendar has, is the caller's mistake (an `AgentStreamError` with code `usage`).
 */
export function parseTimeBound(option: string, text: string, bound: "since" | "until", now: number, timeZone?: string): number {
  const trimmed = text.trim();
  const ago = /^(\d+)\s*([smhdw])$/i.exec(trimmed);
  if (ago !== null) return now - Number(ago[1]) * (UNIT_MS[(ago[2] as string).toLowerCase()] as number);
  const day = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(trimmed);
  if (day !== null) {
    const [year, month, date] = [Number(day[1]), Number(day[2]), Number(day[3])];
    const real = new Date(Date.UTC(year, month - 1, date));
    if (month < 1 || month > 12 || real.getUTCMonth() !== month - 1 || real.getUTCDate() !== date) {
      throw new AgentStreamError("usage", `${option}: ${day[1]}-${day[2]}-${day[3]} is not a day of the calendar`);
    }
    const zone = timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
    const start = dayStart(year, month, date, zone);
    return bound === "since" ? start : dayStart(year, month, date + 1, zone) - 1;
  }
  if (/^\d{4}-\d{2}-\d{2}T/.test(trimmed)) {
    const ms = Date.parse(trimmed);
    if (Number.isFinite(ms)) return ms;
  }
  throw new AgentStreamError(
    "usage",
    `${option} takes a time ago (14d, 2w, 12h, 30m), a day (YYYY-MM-DD) or an instant (2026-11-30T12:00Z), not "${text}"`,
  );
}
