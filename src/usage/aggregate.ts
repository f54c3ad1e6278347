/**
 * Charges grouped for `usage --by …`: tokens by kind and cost per group, a totals row, and optionally each
 * group's models. Day, week and month are those of each request's own time in the chosen time zone.
 */
import { AgentStreamError } from "../errors.ts";
import type { Charge, Ledger, LedgerSession } from "./ledger.ts";
import type { Pricer } from "./prices.ts";
import { addTokens, totalTokens, type UsageFigures, zeroTokens } from "./types.ts";

/** The name a charge without a model is listed under in a report. */
const UNKNOWN_MODEL = "(unknown model)";

export const GROUP_DIMENSIONS = ["day", "week", "month", "session", "model", "project", "agent"] as const;
export type GroupDimension = (typeof GROUP_DIMENSIONS)[number];

interface UsageGroup {
  /** The group's value for each dimension, in the order asked. */
  readonly key: Readonly<Record<string, string>>;
  readonly figures: UsageFigures;
  /** The group by model, when asked (`--breakdown`). */
  readonly breakdown?: { readonly model: string; readonly figures: UsageFigures }[];
}

export interface UsageReport {
  readonly by: readonly GroupDimension[];
  readonly groups: UsageGroup[];
  readonly totals: UsageFigures;
}

export function emptyFigures(): UsageFigures {
  return { tokens: zeroTokens(), costUsd: 0, estimatedUsd: 0, requests: 0, unpricedModels: new Set(), models: new Set() };
}

/** The model name a request is listed under. */
function modelName(charge: Charge): string {
  return charge.model ?? UNKNOWN_MODEL;
}

/** Adds one request to `figures`, pricing it when the agent did not. */
export function addCharge(figures: UsageFigures, charge: Charge, pricer: Pricer): void {
  addTokens(figures.tokens, charge.tokens);
  figures.requests += charge.requests ?? 1;
  const model = modelName(charge);
  figures.models.add(model);
  if (charge.costUsd !== null) figures.costUsd += charge.costUsd;
  if (charge.estimated !== undefined) {
    if (charge.estimated.unpriced) figures.unpricedModels.add(model);
    figures.costUsd += charge.estimated.usd;
    figures.estimatedUsd += charge.estimated.usd;
    return;
  }
  if (charge.costUsd !== null) return;
  const estimated = pricer.cost(charge.model, charge.tokens);
  if (estimated === undefined) {
    if (totalTokens(charge.tokens) > 0) figures.unpricedModels.add(model);
    return;
  }
  figures.costUsd += estimated;
  figures.estimatedUsd += estimated;
}

/** Adds the figures of a group into `into`. */
function addFigures(into: UsageFigures, add: UsageFigures): void {
  addTokens(into.tokens, add.tokens);
  into.costUsd += add.costUsd;
  into.estimatedUsd += add.estimatedUsd;
  into.requests += add.requests;
  for (const model of add.models) into.models.add(model);
  for (const model of add.unpricedModels) into.unpricedModels.add(model);
}

/** A charge's value for one dimension of `--by`. */
function dimensionValue(
  dimension: GroupDimension,
  charge: Charge,
  parts: CalendarParts | undefined,
  session: LedgerSession | undefined,
): string {
  switch (dimension) {
    case "day":
    case "week":
    case "month":
      return parts?.[dimension] ?? "(no time)";
    case "session":
      return session?.sessionId ?? charge.session;
    case "model":
      return modelName(charge);
    case "project":
      return session?.project ?? "(unknown project)";
    case "agent":
      return charge.agent;
  }
}

/** Calendar parts of a time. */
interface CalendarParts {
  readonly day: string;
  readonly week: string;
  readonly month: string;
}

const QUARTER_HOUR = 900_000;
const BLOCK = 6 * 3_600_000;
const DAY = 86_400_000;

/** The names of UTC itself (not of zones at UTC+0 now, which may have had or will have other offsets). */
const UTC_NAMES = new Set(["UTC", "Etc/UTC", "Etc/UCT", "UCT", "Etc/Universal", "Universal", "Etc/Zulu", "Zulu"]);

/** One function per zone for the process: condensing and grouping share what was formatted. */
const zones = new Map<string, (time: number) => number>();

/**
 * A time's day in one time zone, as a number of days since 1970-01-01 there. Formatting dates is the costly part,
 * so the zone's offset is found once per six-hour block: formatted at the block's start and at the next block's
 * (each edge once, shared by the blocks on either side; an offset changes at most once in such a block, and when
 * the two differ each quarter hour of the block is formatted).
 */
export function localDays(timeZone: string): (time: number) => number {
  let dayOf = zones.get(timeZone);
  if (dayOf === undefined) {
    // UTC has no offset to look up: no time zone data is loaded for it (loading it costs a short run measurably).
    dayOf = UTC_NAMES.has(timeZone) ? (time) => Math.floor(time / DAY) : zoneDays(timeZone);
    zones.set(timeZone, dayOf);
  }
  return dayOf;
}

function zoneDays(timeZone: string): (time: number) => number {
  const format = new Intl.DateTimeFormat("en-CA", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
  });
  /** The zone's offset at `time` (ms): its wall-clock time read as UTC, minus the time. */
  const offsetAt = (time: number): number => {
    const at = Math.floor(time / 60_000) * 60_000;
    const f: Record<string, string> = {};
    for (const part of format.formatToParts(new Date(at))) f[part.type] = part.value;
    return Date.UTC(Number(f["year"]), Number(f["month"]) - 1, Number(f["day"]), Number(f["hour"]), Number(f["minute"])) - at;
  };
  const edges = new Map<number, number>();
  const edge = (block: number): number => {
    let offset = edges.get(block);
    if (offset === undefined) {
      offset = offsetAt(block * BLOCK);
      edges.set(block, offset);
    }
    return offset;
  };
  const blocks = new Map<number, number | null>();
  const slots = new Map<number, number>();
  // Requests come in runs of the same block: the last block's offset is kept.
  let lastBlock = Number.NaN;
  let lastOffset: number | null = null;
  const offsetOf = (time: number): number => {
    const block = Math.floor(time / BLOCK);
    let steady = block === lastBlock ? lastOffset : blocks.get(block);
    if (steady === undefined) {
      const first = edge(block);
      steady = first === edge(block + 1) ? first : null;
      blocks.set(block, steady);
    }
    lastBlock = block;
    lastOffset = steady;
    if (steady !== null) return steady;
    const slot = Math.floor(time / QUARTER_HOUR);
    let offset = slots.get(slot);
    if (offset === undefined) {
      offset = offsetAt(slot * QUARTER_HOUR);
      slots.set(slot, offset);
    }
    return offset;
  };
  return (time) => Math.floor((time + offsetOf(time)) / DAY);
}

/**
 * A request's day, week and month in one time zone (each day's parts made once); a condensed charge's day
 * (`Charge.day`, in the zone it was condensed in) is taken as it is.
 */
export function calendar(timeZone: string): (time: number, day?: number) => CalendarParts {
  const dayOf = localDays(timeZone);
  const days = new Map<number, CalendarParts>();
  return (time, known) => {
    const localDay = known ?? dayOf(time);
    let parts = days.get(localDay);
    if (parts === undefined) {
      const day = new Date(localDay * DAY).toISOString().slice(0, 10);
      parts = { day, week: mondayOf(day), month: day.slice(0, 7) };
      days.set(localDay, parts);
    }
    return parts;
  };
}

/** The Monday of the ISO week holding `day` (YYYY-MM-DD). */
function mondayOf(day: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  const weekday = (date.getUTCDay() + 6) % 7;
  return new Date(date.getTime() - weekday * 86_400_000).toISOString().slice(0, 10);
}

export interface GroupOptions {
  readonly by: readonly GroupDimension[];
  readonly timeZone: string;
  readonly breakdown: boolean;
  readonly pricer: Pricer;
  /** Session labels (`--by session`) and projects, by session key. */
  readonly ledger: Ledger;
  readonly include?: (charge: Charge) => boolean;
}

export function groupUsage(charges: readonly Charge[], options: GroupOptions): UsageReport {
  const { by, pricer, ledger } = options;
  checkZone(ledger, options.timeZone);
  const when = calendar(options.timeZone);
  const byTime = by.some((d) => d === "day" || d === "week" || d === "month");
  const bySession = by.some((d) => d === "session" || d === "project");
  const groups = new Map<string, { key: Record<string, string>; figures: UsageFigures; models: Map<string, UsageFigures> }>();
  /** The figures a charge is added to: its group's, and its model's in the group (`--breakdown`); none when left out. */
  const figuresOf = (charge: Charge): UsageFigures[] => {
    if (options.include !== undefined && !options.include(charge)) return [];
    const parts = charge.time === null || !byTime ? undefined : when(charge.time, charge.day);
    const session = bySession ? ledger.sessions.get(charge.session) : undefined;
    // The group's id: its values joined by a separator no log value holds.
    let id = dimensionValue(by[0] ?? "agent", charge, parts, session);
    for (let i = 1; i < by.length; i++) id += `\u0000${dimensionValue(by[i] ?? "agent", charge, parts, session)}`;
    let group = groups.get(id);
    if (group === undefined) {
      const key: Record<string, string> = {};
      for (const dimension of by) key[dimension] = dimensionValue(dimension, charge, parts, session);
      group = { key, figures: emptyFigures(), models: new Map() };
      groups.set(id, group);
    }
    if (!options.breakdown) return [group.figures];
    const model = modelName(charge);
    let figures = group.models.get(model);
    if (figures === undefined) {
      figures = emptyFigures();
      group.models.set(model, figures);
    }
    return [group.figures, figures];
  };
  for (const charge of charges) {
    for (const figures of figuresOf(charge)) addCharge(figures, charge, pricer);
  }
  const sorted = [...groups.values()].sort((a, b) => compareKeys(a.key, b.key, by));
  // The totals are the groups' sums, in the groups' order (each charge is in one group).
  const totals = emptyFigures();
  for (const { figures } of sorted) addFigures(totals, figures);
  return {
    by,
    totals,
    groups: sorted.map((g) =>
      options.breakdown
        ? {
            key: g.key,
            figures: g.figures,
            breakdown: [...g.models.entries()]
              .sort((a, b) => b[1].costUsd - a[1].costUsd || (a[0] < b[0] ? -1 : 1))
              .map(([model, figures]) => ({ model, figures })),
          }
        : { key: g.key, figures: g.figures },
    ),
  };
}

/** Charges condensed by day in one zone cannot be put on the days of another: a caller mistake, said. */
export function checkZone(ledger: Ledger, timeZone: string): void {
  if (ledger.timeZone !== undefined && ledger.timeZone !== timeZone) {
    throw new AgentStreamError(
      "usage",
      `these charges are condensed by day in ${ledger.timeZone}: collect them again with the time zone ${timeZone}`,
    );
  }
}

function compareKeys(a: Record<string, string>, b: Record<string, string>, by: readonly GroupDimension[]): number {
  for (const dimension of by) {
    const x = a[dimension] ?? "";
    const y = b[dimension] ?? "";
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}
