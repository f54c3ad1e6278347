/**
 * The options `sessions` and `usage` share, checked once: dates (`--since`, `--until`, days in the chosen
 * time zone), agents, a project substring, the time zone.
 */
import { AgentStreamError } from "../errors.ts";
import { calendar, checkZone, localDays } from "./aggregate.ts";
import type { Charge, Ledger, LedgerSession } from "./ledger.ts";
import { USAGE_AGENTS } from "./sources.ts";
import type { UsageAgent } from "./types.ts";

export interface UsageFilter {
  readonly since: string | undefined;
  readonly until: string | undefined;
  readonly agents: ReadonlySet<UsageAgent> | undefined;
  readonly project: string | undefined;
  readonly timeZone: string;
}

export interface FilterValues {
  readonly since?: string | undefined;
  readonly until?: string | undefined;
  readonly agent?: readonly string[] | undefined;
  readonly project?: string | undefined;
  readonly tz?: string | undefined;
}

/** The machine's time zone (TZ, else the system's). */
function machineTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

export function parseFilter(values: FilterValues): UsageFilter {
  const timeZone = values.tz ?? machineTimeZone();
  try {
    // Made once for the process here, shared by condensing and grouping.
    localDays(timeZone);
  } catch {
    throw new AgentStreamError("usage", `--tz takes an IANA time zone such as UTC or Europe/Paris, not "${timeZone}"`);
  }
  const agents = (values.agent ?? []).flatMap((a) => a.split(",")).map((a) => a.trim().toLowerCase());
  for (const agent of agents) {
    if (!(USAGE_AGENTS as readonly string[]).includes(agent)) {
      throw new AgentStreamError("usage", `--agent takes ${USAGE_AGENTS.join(", ")}, not "${agent}"`);
    }
  }
  return {
    since: values.since === undefined ? undefined : day("--since", values.since),
    until: values.until === undefined ? undefined : day("--until", values.until),
    agents: agents.length === 0 ? undefined : new Set(agents as UsageAgent[]),
    project: values.project,
    timeZone,
  };
}

/** YYYY-MM-DD from YYYY-MM-DD or YYYYMMDD (the form ccusage takes); a day no calendar has (2026-02-30) is a mistake. */
function day(option: string, text: string): string {
  const match = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(text.trim());
  if (match === null) throw new AgentStreamError("usage", `${option} takes a day as YYYY-MM-DD (or YYYYMMDD), not "${text}"`);
  const [year, month, date] = [Number(match[1]), Number(match[2]), Number(match[3])];
  // Date.UTC rolls an impossible day over (February 30th is March 2nd): a real day comes back as it went in.
  const real = new Date(Date.UTC(year, month - 1, date));
  if (month < 1 || month > 12 || real.getUTCMonth() !== month - 1 || real.getUTCDate() !== date) {
    throw new AgentStreamError("usage", `${option}: ${match[1]}-${match[2]}-${match[3]} is not a day of the calendar`);
  }
  return `${match[1]}-${match[2]}-${match[3]}`;
}

/** Whether a session passes the agent and project filters. */
export function sessionMatches(filter: UsageFilter, session: LedgerSession | undefined): boolean {
  if (session === undefined) return false;
  if (filter.agents !== undefined && !filter.agents.has(session.agent)) return false;
  if (filter.project !== undefined && !(session.project ?? "").includes(filter.project)) return false;
  return true;
}

/**
 * The test each charge must pass for `usage`: its own day inside the range, its session matching; undefined when
 * nothing is filtered (a report of every charge reads no charge's session or day for it).
 */
export function chargeFilter(filter: UsageFilter, ledger: Ledger): ((charge: Charge) => boolean) | undefined {
  checkZone(ledger, filter.timeZone);
  if (filter.since === undefined && filter.until === undefined && filter.agents === undefined && filter.project === undefined) {
    return undefined;
  }
  const when = calendar(filter.timeZone);
  const bySession = filter.agents !== undefined || filter.project !== undefined;
  return (charge) => {
    if (bySession && !sessionMatches(filter, ledger.sessions.get(charge.session))) return false;
    if (filter.since === undefined && filter.until === undefined) return true;
    if (charge.time === null) return false;
    const d = when(charge.time, charge.day).day;
    return (filter.since === undefined || d >= filter.since) && (filter.until === undefined || d <= filter.until);
  };
}

/** For `sessions`: a session passes when any of its span lies in the range (days in the time zone). */
export function sessionInRange(filter: UsageFilter, session: LedgerSession): boolean {
  if (filter.since === undefined && filter.until === undefined) return true;
  if (session.start === null || session.end === null) return false;
  const when = calendar(filter.timeZone);
  return (
    (filter.since === undefined || when(session.end).day >= filter.since) &&
    (filter.until === undefined || when(session.start).day <= filter.until)
  );
}
