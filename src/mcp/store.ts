/**
 * The sessions the MCP server answers about: collected as `sessions` and `usage` collect them (the same stores,
 * scan cache and rules, src/usage/), confined to the server's roots, and found by id or path.
 */
import { AgentStreamError } from "../errors.ts";
import { type Collected, collectUsage } from "../usage/collect.ts";
import { parseFilter, type FilterValues, type UsageFilter } from "../usage/filters.ts";
import { createPricer, loadPrices, type Pricer } from "../usage/prices.ts";
import { sessionsReport } from "../usage/reports.ts";
import type { SessionRow } from "../usage/session-rows.ts";
import { basename } from "node:path";
import type { SearchIndex } from "../search/types.ts";
import { confined, RefusedPath, type SessionRoots } from "./roots.ts";

export interface Collection {
  readonly collected: Collected;
  readonly filter: UsageFilter;
  readonly pricer: Pricer;
}

export class SessionStore {
  readonly roots: SessionRoots;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly pricer: Pricer = createPricer(loadPrices(undefined));

  /** Opened at the first search, kept open while the server runs (each search first reads what changed). */
  private index: SearchIndex | undefined;
  private readonly log: (text: string) => void;

  constructor(roots: SessionRoots, env: Readonly<Record<string, string | undefined>>, log: (text: string) => void) {
    this.roots = roots;
    this.env = env;
    this.log = log;
  }

  /**
   * The search index over the same paths, brought up to date with the logs (docs/search.md). Loaded at the first
   * search: the other tools neither wait for SQLite's native module nor fail without it.
   */
  async searchIndex(): Promise<SearchIndex> {
    if (this.index === undefined) {
      const { openSearchIndex } = await import("../search/open-search-index.ts");
      this.index = openSearchIndex({ paths: this.roots.paths, env: this.env, onNotice: (line) => this.log(`${line}\n`) });
    }
    this.index.update();
    return this.index;
  }

  close(): void {
    this.index?.close();
    this.index = undefined;
  }

  /** Checks the filter (a mistake throws before anything is read), then reads the stores (what changed since the last call). */
  async collect(values: FilterValues): Promise<Collection> {
    const filter = parseFilter(values);
    const collected = await collectUsage({
      paths: this.roots.paths,
      env: this.env,
      cache: true,
      condensed: { pricer: this.pricer, timeZone: filter.timeZone },
    });
    return { collected: confined(collected, this.roots), filter, pricer: this.pricer };
  }

  /**
   * The log file of a session: `session` is a session id that `list_sessions` gave (its main file: a Claude
   * session's subagent files are its others), else a path inside the roots.
   */
  async fileOf(session: string): Promise<string> {
    const trimmed = session.trim();
    if (trimmed === "") throw new AgentStreamError("usage", "give a session id or the path of a session log");
    if (!looksLikePath(trimmed)) {
      const { collected, filter, pricer } = await this.collect({});
      const row = sessionsReport(collected, filter, pricer, "start").find((r) => r.sessionId === trimmed);
      if (row !== undefined) return this.roots.check(mainFile(row));
    }
    try {
      return this.roots.check(trimmed);
    } catch (error) {
      if (error instanceof RefusedPath && !looksLikePath(trimmed))
        throw new RefusedPath(`no session has the id "${trimmed}" in the stores this server reads. Call list_sessions for the ids.`);
      throw error;
    }
  }
}

function looksLikePath(text: string): boolean {
  return text.includes("/") || text.includes("\\") || /\.jsonl?$/.test(text);
}

/** The file named after the session (Claude, Codex), else its first. */
function mainFile(row: SessionRow): string {
  const id = row.sessionId ?? "";
  return row.files.find((file) => id !== "" && basename(file).includes(id) && !file.includes("/subagents/")) ?? row.files[0] ?? "";
}
