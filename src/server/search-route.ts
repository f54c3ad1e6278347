/**
 * `GET /api/search?q=…`: the query string read into a search of the served sessions, and the index's hits told by
 * the session ids the page knows (docs/web.md, API). A query that cannot be read is a 400 with `{"error": …}`.
 */
import type { SearchQuery, SearchResult, SearchStatus } from "../search/types.ts";
import type { LiveSearchAnswer, LiveSearchHit } from "../views/web/live-wire.ts";
import type { SearchableFile } from "./catalog.ts";

/** Hits of one answer: 50 unless `limit` says fewer or more, never more than 200 (the page pages with `offset`). */
const DEFAULT_LIMIT = 50;
const MAX_SEARCH_LIMIT = 200;
const STATUSES: readonly SearchStatus[] = ["success", "error", "interrupted", "unfinished"];

/** The query of `url`, or why it is not one. */
export function searchQueryOf(url: URL): { readonly query: SearchQuery } | { readonly error: string } {
  const params = url.searchParams;
  const text = (params.get("q") ?? "").trim();
  const regex = params.get("regex") === "1";
  const agents = params
    .getAll("agent")
    .flatMap((value) => value.split(","))
    .map((value) => value.trim())
    .filter(Boolean);
  const given = (name: string): string | undefined => {
    const value = params.get(name)?.trim();
    return value === undefined || value === "" ? undefined : value;
  };
  const tool = given("tool");
  const file = given("file");
  const project = given("project");
  if (text === "" && tool === undefined && file === undefined && agents.length === 0 && project === undefined)
    return { error: 'give q (words, "a phrase", or a regular expression with regex=1) or a facet (agent, tool, file, project)' };
  const limit = wholeNumber(given("limit") ?? String(DEFAULT_LIMIT));
  if (limit === undefined || limit < 1 || limit > MAX_SEARCH_LIMIT) return { error: `limit takes 1 to ${MAX_SEARCH_LIMIT}` };
  const offset = wholeNumber(given("offset") ?? "0");
  if (offset === undefined) return { error: "offset takes a whole number from 0" };
  const since = instant(given("since"));
  const until = instant(given("until"));
  if (since === null || until === null) return { error: "since and until take an RFC 3339 time" };
  const status = given("status");
  if (status !== undefined && !STATUSES.includes(status as SearchStatus)) return { error: `status takes ${STATUSES.join(", ")}` };
  return {
    query: {
      ...(text === "" ? {} : regex ? { regex: text } : { text }),
      tool,
      file,
      project,
      model: given("model"),
      agents: agents.length === 0 ? undefined : agents,
      since,
      until,
      status: status as SearchStatus | undefined,
      reasoning: params.get("reasoning") === "1",
      outputs: params.get("outputs") === "1",
      limit,
      offset,
    },
  };
}

/** The index's hits in the files served, each told by its session's id (a hit in a file no longer served is dropped). */
export function searchAnswer(result: SearchResult, files: readonly SearchableFile[]): LiveSearchAnswer {
  const ids = new Map(files.map((file) => [file.path, file.id]));
  const hits: LiveSearchHit[] = [];
  for (const hit of result.hits) {
    const session = ids.get(hit.path);
    if (session === undefined) continue;
    const { agent, sessionId, project, model, status, event, line, time, field, tool, snippet, ranges } = hit;
    hits.push({ session, agent, sessionId, project, model, status, event, line, time, field, tool, snippet, ranges });
  }
  return { hits, more: result.more };
}

function wholeNumber(text: string): number | undefined {
  return /^\d{1,9}$/.test(text) ? Number(text) : undefined;
}

/** undefined: not given; null: not a time. */
function instant(text: string | undefined): number | undefined | null {
  if (text === undefined) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : ms;
}
