/**
 * The `search` tool: the search index of src/search/ (docs/search.md) over the same paths as the other tools. Hits
 * are redacted by the index; a hit in a file outside the roots (a link leading out) is left out.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { parseTimeBound } from "../search/time.ts";
import { SEARCH_STATUSES, type SearchHit, type SearchQuery, type SearchStatus } from "../search/types.ts";
import { USAGE_AGENTS } from "../usage/sources.ts";
import { answer, guarded } from "./answers.ts";
import type { SessionStore } from "./store.ts";

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;
const time = (what: string) =>
  z.string().optional().describe(`${what}: a time ago (14d, 2w, 12h), a day (YYYY-MM-DD) or an instant (2026-11-30T12:00Z)`);

const searchShape = {
  query: z
    .string()
    .optional()
    .describe('words and "quoted phrases", case-insensitive, all in the same text (a prompt, an answer, a tool input, ...)'),
  regex: z.string().optional().describe("a JavaScript regular expression over the texts instead (/due\\d/i; case-insensitive by default)"),
  tool: z.string().optional().describe("only calls of this tool (Edit, Bash, shell, ...)"),
  file: z.string().optional().describe("only sessions whose tool calls touched this file (its path or the end of it: src/auth.ts)"),
  agent: z
    .array(z.enum(USAGE_AGENTS as [string, ...string[]]))
    .optional()
    .describe("only these agents"),
  project: z.string().optional().describe("only projects (working directories) containing this text"),
  model: z.string().optional().describe("only sessions whose model contains this text"),
  status: z
    .enum(SEARCH_STATUSES as [SearchStatus, ...SearchStatus[]])
    .optional()
    .describe("only sessions that ended so"),
  since: time("only from then on"),
  until: time("only up to then"),
  reasoning: z.boolean().default(false).describe("search the agents' reasoning too"),
  outputs: z.boolean().default(false).describe("search tool outputs too (large)"),
  limit: z.number().int().min(1).max(200).default(20).describe("at most this many hits, newest first"),
  offset: z.number().int().min(0).default(0).describe("hits to skip, for the next page"),
};

export function registerSearch(server: McpServer, store: SessionStore, log: (text: string) => void): void {
  server.registerTool(
    "search",
    {
      title: "Search every agent's sessions",
      description:
        "Finds what any coding agent did on this machine, newest first: words or a regex in prompts, answers, tool calls (names, commands, paths), errors, and optionally reasoning and tool outputs; or facets alone (a tool, a file touched, agent, project, model, status, time). Each hit gives the session (agent, id, project), its log path, line and event index, and a redacted snippet; read the session around a hit with read_transcript (format events, offset = event).",
      inputSchema: searchShape,
      annotations: { title: "Search every agent's sessions", ...READ_ONLY },
    },
    (args) =>
      guarded(
        "search",
        async () => {
          const now = Date.now();
          const query: SearchQuery = {
            text: args.query,
            regex: args.regex,
            tool: args.tool,
            file: args.file,
            agents: args.agent,
            project: args.project,
            model: args.model,
            status: args.status,
            since: args.since === undefined ? undefined : parseTimeBound("--since", args.since, "since", now),
            until: args.until === undefined ? undefined : parseTimeBound("--until", args.until, "until", now),
            reasoning: args.reasoning,
            outputs: args.outputs,
            limit: args.limit,
            offset: args.offset,
          };
          const result = (await store.searchIndex()).search(query);
          const hits = result.hits.filter((hit) => store.roots.holds(hit.path));
          const next = result.more ? args.offset + args.limit : null;
          const head = `${hits.length} hit(s)${next === null ? "" : `; more from offset ${next}`}`;
          return answer({ hits, nextOffset: next }, [head, ...hits.map(hitText)].join("\n\n"));
        },
        log,
      ),
  );
}

function hitText(hit: SearchHit): string {
  const where = `${hit.path}:${hit.line ?? "-"} (event ${hit.event})`;
  const about = [
    hit.time ?? "-",
    hit.agent,
    hit.sessionId ?? "-",
    hit.project ?? "-",
    `${hit.field}${hit.tool === null ? "" : ` ${hit.tool}`}`,
  ];
  return `${about.join("  ")}\n${where}\n${hit.snippet}`;
}
