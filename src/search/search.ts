/**
 * Answering a query from the index: the facets as SQL conditions, the words and phrases through the FTS5 table (each
 * a string literal, never user syntax), a regex or a term too short for the trigrams checked in JavaScript over the
 * candidates, newest first; then each hit's snippet and match ranges.
 */
import { AgentStreamError } from "../errors.ts";
import { ID_PER_MS } from "./update.ts";
import { compileRegex, ftsExpression, holdsAll, matchRanges, queryTerms, snippetOf } from "./query.ts";
import { type Db, reversed } from "./store.ts";
import { SEARCH_STATUSES, type SearchField, type SearchHit, type SearchQuery, type SearchResult, type SearchStatus } from "./types.ts";

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 1000;

interface Row {
  readonly id: number;
  readonly seq: number;
  readonly line: number | null;
  readonly time: number | null;
  readonly field: SearchField;
  readonly tool: string | null;
  readonly text: string;
  readonly path: string;
  readonly session_id: string | null;
  readonly agent: string;
  readonly project: string | null;
  readonly model: string | null;
  readonly status: SearchStatus;
}

/** The SQL of a query and its parameters. */
interface Plan {
  readonly sql: string;
  readonly params: unknown[];
  /** What each candidate must still hold (terms checked in JavaScript, the regex). */
  readonly check: (row: Row) => boolean;
  /** What the snippet highlights. */
  readonly matcher: readonly string[] | RegExp;
}

function checkPaging(query: SearchQuery): { limit: number; offset: number } {
  const limit = query.limit ?? DEFAULT_LIMIT;
  const offset = query.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    throw new AgentStreamError("usage", `limit takes a whole number from 1 to ${MAX_LIMIT}, not ${limit}`);
  if (!Number.isInteger(offset) || offset < 0) throw new AgentStreamError("usage", `offset takes a whole number from 0, not ${offset}`);
  if (query.status !== undefined && !SEARCH_STATUSES.includes(query.status))
    throw new AgentStreamError("usage", `status takes ${SEARCH_STATUSES.join(", ")}, not "${query.status}"`);
  return { limit, offset };
}

/** The conditions on the session and the event every plan shares: fields, facets, the scope of the last update. */
function facetConditions(query: SearchQuery, where: string[], params: unknown[]): void {
  const fields: SearchField[] = ["prompt", "answer", "tool", "input", "error"];
  if (query.reasoning === true) fields.push("reasoning");
  if (query.outputs === true) fields.push("output");
  // `+`: never the way into the sessions (each plan streams newest first from its own index; see `order`).
  where.push(`d.field IN (${fields.map(() => "?").join(", ")})`, "+s.file IN (SELECT file FROM scope)");
  params.push(...fields);
  if (query.agents !== undefined && query.agents.length > 0) {
    where.push(`s.agent IN (${query.agents.map(() => "?").join(", ")})`);
    params.push(...query.agents.map((agent) => agent.toLowerCase()));
  }
  const contains = (column: string, value: string | undefined): void => {
    if (value === undefined) return;
    where.push(`instr(${column}, ?) > 0`);
    params.push(value);
  };
  contains("s.project", query.project);
  contains("s.model", query.model);
  if (query.status !== undefined) {
    where.push("s.status = ?");
    params.push(query.status);
  }
  if (query.since !== undefined) {
    // Ids follow time (update.ts `docId`): a time range is a rowid range.
    where.push("d.id >= ?");
    params.push(Math.min(Math.max(0, query.since), Date.UTC(2200, 0, 1)) * ID_PER_MS);
  }
  if (query.until !== undefined) {
    where.push("d.id < ?");
    params.push((Math.min(Math.max(0, query.until), Date.UTC(2200, 0, 1)) + 1) * ID_PER_MS);
  }
  if (query.tool !== undefined) {
    where.push("d.tool = ? COLLATE NOCASE");
    params.push(query.tool);
  }
}

/** The plan of a query: what SQL narrows, what JavaScript checks. */
function plan(query: SearchQuery): Plan {
  const where: string[] = [];
  const params: unknown[] = [];
  let from = "docs d";
  // Newest first is descending ids (update.ts `docId`): each source streams in that order, so a page stops early.
  let order = "d.id DESC";
  facetConditions(query, where, params);
  const text = query.text?.trim() ?? "";
  const terms = queryTerms(text);
  const regex = query.regex === undefined ? undefined : compileRegex(query.regex);
  if (query.file !== undefined) {
    const file = query.file.replace(/^\.\//, "");
    // The path itself, or a path ending in `/<file>`: reversed, both are ranges of one index.
    const touched = "SELECT session, seq FROM touched WHERE reversed = ? OR (reversed >= ? AND reversed < ?)";
    // With nothing to find, the hits are the tool calls that touched the file; else the session must have touched it.
    if (terms.length === 0 && regex === undefined) where.push(`(d.session, d.seq) IN (${touched})`);
    else where.push(`d.session IN (SELECT session FROM (${touched}))`);
    const end = reversed(`/${file}`);
    params.push(reversed(file), end, `${end}\uffff`);
  }
  const expression = ftsExpression(terms);
  if (expression !== undefined) {
    from = "docs_fts JOIN docs d ON d.id = docs_fts.rowid";
    where.push("docs_fts MATCH ?");
    order = "docs_fts.rowid DESC";
    params.push(expression);
  }
  if (terms.length === 0 && regex === undefined && query.tool === undefined && query.file === undefined) {
    // Facets only: one hit per session, its first prompt (else its first text).
    // Driven from the sessions (CROSS JOIN keeps that order): one row each, not a walk over every text.
    from = "sessions s CROSS JOIN docs d ON d.id = s.first_doc";
    order = "s.first_doc DESC";
  } else from += " JOIN sessions s ON s.id = d.session";
  const sql = `SELECT d.id, d.seq, d.line, d.time, d.field, d.tool, d.text, f.path, s.session_id, s.agent, s.project, s.model, s.status
    FROM ${from} JOIN files f ON f.id = s.file
    WHERE ${where.join(" AND ")} ORDER BY ${order}`;
  const check =
    regex !== undefined
      ? (row: Row) => {
          regex.lastIndex = 0;
          const inText = regex.test(row.text);
          regex.lastIndex = 0;
          return (
            (inText || (row.tool !== null && regex.test(row.tool))) && (terms.length === 0 || holdsAll(terms, [row.text, row.tool ?? ""]))
          );
        }
      : (row: Row) => terms.length === 0 || holdsAll(terms, [row.text, row.tool ?? ""]);
  return { sql, params, check, matcher: regex ?? terms };
}

function hitOf(row: Row, matcher: readonly string[] | RegExp): SearchHit {
  const inText = matchRanges(row.text, matcher);
  const onName = inText.length === 0 && row.tool !== null ? matchRanges(row.tool, matcher) : [];
  const shown = onName.length > 0 ? { snippet: row.tool as string, ranges: onName } : snippetOf(row.text, inText);
  return {
    agent: row.agent,
    sessionId: row.session_id,
    project: row.project,
    model: row.model,
    status: row.status,
    path: row.path,
    line: row.line,
    event: row.seq,
    time: row.time === null ? null : new Date(row.time).toISOString(),
    field: onName.length > 0 ? "tool" : row.field,
    tool: row.tool,
    snippet: shown.snippet,
    ranges: shown.ranges,
  };
}

/** The hits of a query over the files of the last update, newest first. */
export function runSearch(db: Db, query: SearchQuery): SearchResult {
  const { limit, offset } = checkPaging(query);
  const { sql, params, check, matcher } = plan(query);
  const hits: SearchHit[] = [];
  let skipped = 0;
  let more = false;
  for (const row of db.prepare(sql).iterate(...params) as IterableIterator<Row>) {
    if (!check(row)) continue;
    if (skipped < offset) {
      skipped++;
      continue;
    }
    if (hits.length === limit) {
      more = true;
      break;
    }
    hits.push(hitOf(row, matcher));
  }
  return { hits, more };
}
