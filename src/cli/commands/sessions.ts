import { sessionInRange, sessionMatches } from "../../usage/filters.ts";
import { figuresJson, sessionsTable } from "../../usage/render.ts";
import { durationOf, SESSION_SORTS, sessionRows, sortSessions } from "../../usage/session-rows.ts";
import { defineCommand } from "../args.ts";
import { readUsage, tableWidth, USAGE_LOCATIONS_NOTE, usageOptions } from "../usage-options.ts";

export const sessions = defineCommand({
  name: "sessions",
  summary: "one row per agent session found: agent, project, start, duration, models, status, tokens, cost",
  usage: "sessions [options] [path ...]",
  description: `Lists the Claude Code, Codex and Gemini CLI sessions whose logs are under the paths (files or
folders), or in the agents' standard locations. A Claude session's subagent files count in it.
Tokens and cost follow the same rules as \`agentstream usage\` (docs/usage.md); cost marked ~ is
estimated from the price table.`,
  options: {
    sort: {
      type: "string",
      default: "start",
      valueHint: "<key>",
      choices: SESSION_SORTS,
      description: `${SESSION_SORTS.join(" | ")} (default: start; sizes largest first)`,
    },
    ndjson: { type: "boolean", default: false, description: "print one JSON object per session per line" },
    ...usageOptions,
  },
  notes: USAGE_LOCATIONS_NOTE,
  examples: [
    "agentstream sessions",
    "agentstream sessions --since 2026-11-01 --agent claude --sort cost",
    "agentstream sessions ~/.codex/sessions --ndjson",
  ],
  async run({ values, positionals, io }) {
    const { collected, filter, pricer, exit } = await readUsage(values, positionals, io);
    const keep = (session: Parameters<typeof sessionMatches>[1] & object): boolean =>
      sessionMatches(filter, session) && sessionInRange(filter, session);
    const rows = sortSessions(sessionRows(collected.ledger, pricer, keep), values.sort);
    if (values.json || values.ndjson) {
      const objects = rows.map((row) => ({
        agent: row.agent,
        sessionId: row.sessionId,
        project: row.project,
        start: row.start === null ? null : new Date(row.start).toISOString(),
        end: row.end === null ? null : new Date(row.end).toISOString(),
        durationMs: row.start === null ? null : durationOf(row),
        status: row.status,
        ...figuresJson(row.figures),
        malformedLines: row.malformedLines,
        files: row.files,
        ...(row.title === null ? {} : { title: row.title }),
      }));
      const text = values.ndjson ? objects.map((o) => `${JSON.stringify(o)}\n`).join("") : `${JSON.stringify(objects, null, 2)}\n`;
      await io.stdout.write(text);
      return exit;
    }
    if (rows.length === 0) {
      await io.stderr.write(`agentstream sessions: no session found in ${collected.files} file(s)\n`);
      return exit;
    }
    await io.stdout.write(sessionsTable(rows, filter.timeZone, tableWidth(io)));
    return exit;
  },
});
