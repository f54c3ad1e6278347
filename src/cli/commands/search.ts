import { existsSync } from "node:fs";
import { AgentStreamError } from "../../errors.ts";
import {
  openSearchIndex,
  parseTimeBound,
  SEARCH_STATUSES,
  type SearchHit,
  type SearchQuery,
  type UpdateReport,
} from "../../search/index.ts";
import { DEFAULT_LOCATIONS_HELP } from "../../usage/discover.ts";
import { USAGE_AGENTS } from "../../usage/sources.ts";
import { safeCell } from "../../usage/table.ts";
import { sanitizeForTerminal } from "../../views/shared/sanitize.ts";
import { defineCommand, type ParsedValues } from "../args.ts";
import { EXIT } from "../exit.ts";
import type { CliIo } from "../io.ts";
import { chooseMode } from "./render.ts";

const searchOptions = {
  regex: {
    type: "boolean",
    default: false,
    description: "the query is a JavaScript regular expression (case-insensitive; /re/flags for others)",
  },
  tool: { type: "string", valueHint: "<name>", description: "only tool calls of this tool (Edit, Bash, shell, ...)" },
  file: {
    type: "string",
    valueHint: "<path>",
    description: "only sessions whose tool calls touched this file (its path or the end of it)",
  },
  agent: { type: "string", multiple: true, valueHint: "<agent>", description: "only these agents (repeat, or a comma list)" },
  project: { type: "string", valueHint: "<text>", description: "only projects (working directories) containing this text" },
  model: { type: "string", valueHint: "<text>", description: "only sessions whose model contains this text" },
  status: { type: "string", valueHint: "<status>", choices: SEARCH_STATUSES, description: `${SEARCH_STATUSES.join(" | ")}` },
  since: { type: "string", valueHint: "<when>", description: "from then on: 14d, 12h, 2w (ago), a day (YYYY-MM-DD) or an instant" },
  until: { type: "string", valueHint: "<when>", description: "up to then, included (same forms; a day means its end)" },
  tz: { type: "string", valueHint: "<zone>", description: "time zone for days and times (default: the machine's)" },
  reasoning: { type: "boolean", default: false, description: "search the agents' reasoning too" },
  outputs: { type: "boolean", default: false, description: "search tool outputs too (each output's first 8 KiB is indexed)" },
  limit: { type: "string", valueHint: "<n>", default: "20", description: "at most n hits (default 20, at most 1000)" },
  json: { type: "boolean", default: false, description: "print JSON (the contract is in docs/cli.md)" },
  "no-index": {
    type: "boolean",
    default: false,
    description: "index in memory for this run only; the index on disk is neither read nor written",
  },
} as const;

export const search = defineCommand({
  name: "search",
  summary: "find anything any agent did: prompts, answers, tool calls and the files they touched, newest first",
  usage: 'search [options] [query] [path ...]   (no query but paths: search "" path ...)',
  description: `Searches the agents' sessions (Claude Code, Codex, Gemini CLI, Qwen Code, Copilot CLI, OpenCode,
Cursor CLI, Amp) under the paths (files or folders), or in
the agents' standard locations: prompts, answers, tool names and inputs (commands, paths, patterns),
errors; reasoning with --reasoning, tool outputs with --outputs. Words and "quoted phrases",
case-insensitive, found inside longer words too; --regex for the rest. Each hit says the agent, the
project, the time and where to open it: path:line and the event (agentstream render <path> --at <event>).
Text is redacted before it is indexed. The index lives in the cache folder and follows the logs as
they change (docs/search.md).`,
  options: searchOptions,
  notes: `
${DEFAULT_LOCATIONS_HELP}
Index: $XDG_CACHE_HOME/agentstream/search-v4.sqlite (else ~/.cache/agentstream), a cache made again when damaged.`,
  examples: [
    'agentstream search "formatDue"',
    "agentstream search --tool Edit --file src/auth.ts",
    'agentstream search "migration" --agent codex --since 14d --json',
    "agentstream search --regex 'retry(ing)? \\d+ times' ~/.claude/projects",
  ],
  async run({ values, positionals, io }) {
    const [text = "", ...paths] = positionals;
    const query = queryOf(values, text, Date.now());
    const notices: string[] = [];
    const index = openSearchIndex({
      env: io.env,
      paths,
      cacheDir: values["no-index"] ? false : undefined,
      onNotice: (line) => notices.push(line),
    });
    try {
      const report = index.update();
      for (const line of notices) await io.stderr.write(`${safeCell(line)}\n`);
      const exit = await reportReading(report, io);
      const result = index.search(query);
      if (values.json) {
        const { elapsedMs: _elapsed, ...indexed } = report;
        await io.stdout.write(`${JSON.stringify({ hits: result.hits, more: result.more, index: indexed }, null, 2)}\n`);
        return exit;
      }
      if (result.hits.length === 0) {
        await io.stderr.write(`agentstream search: no match in ${report.sessions} session(s)\n`);
        // The first word is always the query: a path there was most likely meant as where to look.
        if (text !== "" && existsSync(text)) {
          const shown = safeCell(text);
          await io.stderr.write(
            `agentstream search: "${shown}" was searched for as text; to look in it with no query: agentstream search "" ${shown} …\n`,
          );
        }
        return exit;
      }
      const colour = chooseMode(undefined, io) !== "none";
      const zone = values.tz ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
      await io.stdout.write(result.hits.map((hit) => formatHit(hit, colour, zone)).join("\n"));
      if (result.more) await io.stderr.write(`agentstream search: more hits past ${result.hits.length}: --limit shows more\n`);
      return exit;
    } finally {
      index.close();
    }
  },
});

/** The query the options and the text ask for; a mistake in them throws before any file is read. */
function queryOf(values: ParsedValues<typeof searchOptions>, text: string, now: number): SearchQuery {
  const limit = Number(values.limit);
  if (!/^\d+$/.test(values.limit) || limit < 1 || limit > 1000)
    throw new AgentStreamError("usage", `--limit takes a whole number from 1 to 1000, not "${values.limit}"`);
  if (values.tz !== undefined) {
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: values.tz });
    } catch {
      throw new AgentStreamError("usage", `--tz takes an IANA time zone such as UTC or Europe/Paris, not "${values.tz}"`);
    }
  }
  const agents = (values.agent ?? []).flatMap((a) => a.split(",")).map((a) => a.trim().toLowerCase());
  for (const agent of agents) {
    if (!USAGE_AGENTS.includes(agent)) throw new AgentStreamError("usage", `--agent takes ${USAGE_AGENTS.join(", ")}, not "${agent}"`);
  }
  if (values.regex && text === "") throw new AgentStreamError("usage", "--regex needs a pattern: agentstream search --regex '<pattern>'");
  const bound = (option: string, value: string | undefined, which: "since" | "until") =>
    value === undefined ? undefined : parseTimeBound(option, value, which, now, values.tz);
  return {
    ...(values.regex ? { regex: text } : { text }),
    tool: values.tool,
    file: values.file,
    agents: agents.length === 0 ? undefined : agents,
    project: values.project,
    model: values.model,
    status: values.status,
    since: bound("--since", values.since, "since"),
    until: bound("--until", values.until, "until"),
    reasoning: values.reasoning,
    outputs: values.outputs,
    limit,
  };
}

/** Says what could not be read, as `sessions` does; the exit status: an I/O error when something could not be read. */
async function reportReading(report: UpdateReport, io: CliIo): Promise<number> {
  for (const path of report.missing) await io.stderr.write(`agentstream: ${safeCell(path)}: no such file or folder\n`);
  for (const { path, reason } of report.failed) await io.stderr.write(`agentstream: ${safeCell(path)}: cannot read it: ${reason}\n`);
  return report.missing.length + report.failed.length > 0 ? EXIT.io : EXIT.ok;
}

const HIGHLIGHT = "\x1b[1;33m";
const BOLD = "\x1b[1m";
const DIM = "\x1b[2m";
const RESET = "\x1b[0m";

/** `2026-11-25 09:00` in the time zone. */
function localTime(iso: string | null, timeZone: string): string {
  if (iso === null) return "(no time)";
  const parts = new Intl.DateTimeFormat("en-CA", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
  }).formatToParts(new Date(iso));
  const get = (type: string): string => parts.find((part) => part.type === type)?.value ?? "";
  return `${get("year")}-${get("month")}-${get("day")} ${get("hour")}:${get("minute")}`;
}

/**
 * One hit: a heading (time, agent, project, what matched), the reference to open (`path:line #event`), then the
 * lines around the match, indented, each piece sanitized for the terminal and the matches highlighted when colour
 * is on.
 */
function formatHit(hit: SearchHit, colour: boolean, timeZone: string): string {
  const what = hit.tool === null ? hit.field : `${hit.field} ${hit.tool}`;
  const heading = [localTime(hit.time, timeZone), hit.agent, hit.project ?? "(no project)", what].map(safeCell).join(" · ");
  const where = `${safeCell(hit.path)}${hit.line === null ? "" : `:${hit.line}`} #${hit.event}`;
  let body = "";
  let at = 0;
  for (const [start, end] of hit.ranges) {
    body += sanitizeForTerminal(hit.snippet.slice(at, start));
    const match = sanitizeForTerminal(hit.snippet.slice(start, end));
    body += colour ? `${HIGHLIGHT}${match}${RESET}` : match;
    at = end;
  }
  body += sanitizeForTerminal(hit.snippet.slice(at));
  const lines = body
    .trimEnd()
    .split("\n")
    .map((line) => `    ${line}`);
  return `${colour ? BOLD + heading + RESET : heading}\n  ${colour ? DIM + where + RESET : where}\n${lines.join("\n")}\n`;
}
