/**
 * The tools of `agentstream mcp`, all read-only: list sessions (as `sessions`), one session's summary (as
 * `summary --json`), a page of its transcript (redacted: as `convert --to text`, or its events), and usage (as
 * `usage --json`), and search (search-tool.ts). docs/mcp.md is their contract.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { stringifyRecord } from "../framing/stringify.ts";
import type { SummaryWithRedactions } from "../pipeline/session-summary.ts";
import { formatCost, formatDuration, formatTokenTotals } from "../views/shared/format.ts";
import { GROUP_DIMENSIONS } from "../usage/aggregate.ts";
import { costNote, usageTable } from "../usage/render.ts";
import { type SessionJson, sessionJson, sessionsReport, usageJson, usageReport } from "../usage/reports.ts";
import { SESSION_SORTS } from "../usage/session-rows.ts";
import { USAGE_AGENTS } from "../usage/sources.ts";
import { answer, guarded } from "./answers.ts";
import { eventsPage, summarizeFile, textPage } from "./read-session.ts";
import { registerSearch } from "./search-tool.ts";
import type { SessionStore } from "./store.ts";

/** A page of a transcript stops before it passes this many characters (clients cap what a tool may return). */
const PAGE_CHARS = 60_000;
/** Sessions `list_sessions` returns when no limit is given. */
const DEFAULT_SESSIONS = 50;

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

const day = (what: string) =>
  z
    .string()
    .regex(/^\d{4}-?\d{2}-?\d{2}$/, "a day as YYYY-MM-DD")
    .optional()
    .describe(`${what} (YYYY-MM-DD, a day in the time zone \`tz\`)`);

/** The filters `sessions` and `usage` share (docs/cli.md), as tool arguments. */
const filterShape = {
  agent: z
    .array(z.enum(USAGE_AGENTS as [string, ...string[]]))
    .optional()
    .describe("only these agents"),
  since: day("from this day on"),
  until: day("up to this day, included"),
  project: z.string().optional().describe("only projects (working directories) containing this text"),
  tz: z.string().optional().describe("IANA time zone for days and times (default: the machine's)"),
};

const sessionArgument = z
  .string()
  .min(1)
  .describe("a session id from list_sessions, or the path of the session's log file (inside the stores this server reads)");

export function registerTools(server: McpServer, store: SessionStore, log: (text: string) => void): void {
  server.registerTool(
    "list_sessions",
    {
      title: "List agent sessions",
      description:
        "Lists the coding-agent sessions (Claude Code, Codex, Gemini CLI, ...) saved on this machine, as `agentstream sessions` does: agent, session id, project, start and end, status, tokens, cost and log files. Times sort newest first, sizes largest first. Pass a session id or file to session_summary or read_transcript.",
      inputSchema: {
        ...filterShape,
        sort: z
          .enum(SESSION_SORTS)
          .default("start")
          .describe("start | end (newest first), duration | tokens | cost (largest first), project | agent"),
        limit: z.number().int().min(1).max(1000).default(DEFAULT_SESSIONS).describe("at most this many sessions"),
      },
      annotations: { title: "List agent sessions", ...READ_ONLY },
    },
    (args) =>
      guarded(
        "list_sessions",
        async () => {
          const { collected, filter, pricer } = await store.collect(args);
          const rows = sessionsReport(collected, filter, pricer, args.sort);
          // Times newest first: the sessions one asks about are mostly the recent ones.
          if (args.sort === "start" || args.sort === "end") rows.reverse();
          const sessions = rows.slice(0, args.limit).map(sessionJson);
          const text = [`${rows.length} session(s)${rows.length > sessions.length ? `, the first ${sessions.length} shown` : ""}`]
            .concat(sessions.map(sessionLine))
            .join("\n");
          return answer({ sessions, total: rows.length, timeZone: filter.timeZone }, text);
        },
        log,
      ),
  );

  server.registerTool(
    "session_summary",
    {
      title: "Summarize a session",
      description:
        "One session's facts, as `agentstream summary --json` gives them: agent, model, status, final answer, tool calls, tokens, cost, duration, turns, issues. Secrets are redacted.",
      inputSchema: { session: sessionArgument },
      annotations: { title: "Summarize a session", ...READ_ONLY },
    },
    (args) =>
      guarded(
        "session_summary",
        async () => {
          const path = await store.fileOf(args.session);
          const summaries = await summarizeFile(path);
          return answer({ path, summaries }, [path, ...summaries.map(summaryText)].join("\n\n"));
        },
        log,
      ),
  );

  registerTranscript(server, store, log);
  registerUsage(server, store, log);
  registerSearch(server, store, log);
}

function registerTranscript(server: McpServer, store: SessionStore, log: (text: string) => void): void {
  server.registerTool(
    "read_transcript",
    {
      title: "Read a session's transcript",
      description:
        "A page of one session's transcript, secrets redacted: `text` (what was asked, answered, thought, the tool calls and their output, as `agentstream convert --to text`) counted in lines, or `events` (agentstream's event model, docs/events.md) counted in events. Returns the total and nextOffset (null at the end); call again with offset = nextOffset for the next page.",
      inputSchema: {
        session: sessionArgument,
        format: z.enum(["text", "events"]).default("text").describe("text: lines of the transcript; events: the normalized events"),
        offset: z.number().int().min(0).default(0).describe("the first line (text) or event (events) to return, from 0"),
        limit: z.number().int().min(1).max(2000).optional().describe("at most this many lines (default 200) or events (default 50)"),
      },
      annotations: { title: "Read a session's transcript", ...READ_ONLY },
    },
    (args) =>
      guarded(
        "read_transcript",
        async () => {
          const path = await store.fileOf(args.session);
          const limit = args.limit ?? (args.format === "text" ? 200 : 50);
          const request = { offset: args.offset, limit, maxChars: PAGE_CHARS };
          if (args.format === "text") {
            const page = await textPage(path, request);
            const head = pageHead("line", args.offset, page.items.length, page.total, page.nextOffset);
            const structured = {
              path,
              format: "text",
              offset: args.offset,
              total: page.total,
              nextOffset: page.nextOffset,
              lines: page.items,
            };
            return answer(structured, [head, ...page.items].join("\n"));
          }
          const page = await eventsPage(path, request);
          const head = pageHead("event", args.offset, page.items.length, page.total, page.nextOffset);
          const structured = {
            path,
            format: "events",
            offset: args.offset,
            total: page.total,
            nextOffset: page.nextOffset,
            events: page.items,
          };
          return answer(structured, [head, ...page.items.map((event) => stringifyRecord(event))].join("\n"));
        },
        log,
      ),
  );
}

function registerUsage(server: McpServer, store: SessionStore, log: (text: string) => void): void {
  server.registerTool(
    "usage",
    {
      title: "Token usage and cost",
      description:
        "Tokens (input, output, cache read and write, reasoning) and cost of the saved agent sessions, grouped by day, week, month, session, model, project or agent, as `agentstream usage --json`. Each request is counted once; costs marked estimated come from agentstream's price table.",
      inputSchema: {
        ...filterShape,
        by: z.array(z.enum(GROUP_DIMENSIONS)).min(1).default(["day"]).describe("group by these, in this order (default: day)"),
        breakdown: z.boolean().default(false).describe("each group's models too"),
      },
      annotations: { title: "Token usage and cost", ...READ_ONLY },
    },
    (args) =>
      guarded(
        "usage",
        async () => {
          const { collected, filter, pricer } = await store.collect(args);
          const by = [...new Set(args.by)];
          const report = usageReport(collected, filter, pricer, { by, breakdown: args.breakdown });
          const json = usageJson(report, collected, filter, pricer);
          const text =
            report.groups.length === 0
              ? `no usage found in ${collected.files} file(s)`
              : usageTable(report, Number.POSITIVE_INFINITY) + costNote(report.totals, pricer.date);
          return answer({ ...json }, text);
        },
        log,
      ),
  );
}

function sessionLine(s: SessionJson): string {
  const cost = s.costUsd === null ? "cost unknown" : formatCost(s.costUsd, s.costEstimated);
  const fields = [
    s.start ?? "-",
    s.agent,
    s.sessionId ?? "-",
    s.status,
    `${s.tokens.total} tokens`,
    cost,
    s.project ?? "-",
    s.files[0] ?? "",
  ];
  return fields.join("  ");
}

function summaryText(s: SummaryWithRedactions): string {
  const lines = [
    `agent: ${[s.agent, s.agentVersion].filter(Boolean).join(" ") || "-"}`,
    `session: ${s.sessionId ?? "-"}`,
    `model: ${s.model ?? "-"}`,
    `status: ${s.status}${s.error === null ? "" : `: ${s.error}`}`,
    `turns: ${s.turns ?? "-"}, duration: ${s.durationMs === null ? "-" : formatDuration(s.durationMs)}, tool calls: ${s.toolCalls.length}`,
    `tokens: ${formatTokenTotals(s.usage) || "-"}, cost: ${s.costUsd === null ? "unknown" : formatCost(s.costUsd, s.costEstimated)}`,
  ];
  if (s.finalText !== null) lines.push(`final answer: ${s.finalText}`);
  return lines.join("\n");
}

function pageHead(unit: string, offset: number, count: number, total: number, next: number | null): string {
  const range = count === 0 ? `no ${unit}s from ${offset}` : `${unit}s ${offset}-${offset + count - 1}`;
  return `[${range} of ${total}; ${next === null ? "the end" : `next offset ${next}`}]`;
}
