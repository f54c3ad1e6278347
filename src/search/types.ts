/**
 * The search API's shapes (docs/search.md): what a caller asks (`SearchQuery`), what it gets (`SearchHit`,
 * `SearchResult`), what an update did (`UpdateReport`). Plain data, the same for the CLI, the MCP server and the web
 * view.
 */

/** What an indexed text is: the field a hit was found in. */
export type SearchField = "prompt" | "answer" | "reasoning" | "tool" | "input" | "output" | "error";

export const SEARCH_FIELDS: readonly SearchField[] = ["prompt", "answer", "reasoning", "tool", "input", "output", "error"];

/** How a session ended, as the event model says (`session.completed`), or `unfinished` when it never said. */
export type SearchStatus = "success" | "error" | "interrupted" | "unfinished";

export const SEARCH_STATUSES: readonly SearchStatus[] = ["success", "error", "interrupted", "unfinished"];

/** A search. Every field is optional; the facets narrow what the text matches (all given ones must hold). */
export interface SearchQuery {
  /**
   * Words and "quoted phrases", case-insensitive, each found anywhere in one field's text, inside longer words too
   * (`formatDue` finds `this.formatDue(x)`). All of them must be in the same field of the same event.
   */
  readonly text?: string | undefined;
  /** A JavaScript regular expression (flags after a last `/` as in `/due\d/i`, else case-insensitive) over the texts. */
  readonly regex?: string | undefined;
  /** Only tool calls of this tool (`Edit`, `Bash`, `shell`), case-insensitive. */
  readonly tool?: string | undefined;
  /** Only sessions whose tool calls touched this file (its path, or the end of it: `src/auth.ts`). */
  readonly file?: string | undefined;
  /** Only these agents (`claude`, `codex`, `gemini`, as `sessions` names them). */
  readonly agents?: readonly string[] | undefined;
  /** Only projects (working directories) containing this text. */
  readonly project?: string | undefined;
  /** Only sessions whose model contains this text. */
  readonly model?: string | undefined;
  /** Only hits from this instant on (ms since the epoch). */
  readonly since?: number | undefined;
  /** Only hits up to this instant (ms since the epoch), included. */
  readonly until?: number | undefined;
  readonly status?: SearchStatus | undefined;
  /** Search the reasoning too (off: reasoning is private thought, often long). */
  readonly reasoning?: boolean | undefined;
  /** Search tool outputs too (off: they are large and mostly noise). */
  readonly outputs?: boolean | undefined;
  /** At most this many hits (default 20, at most 1000). */
  readonly limit?: number | undefined;
  /** Hits to skip first, for paging (default 0). */
  readonly offset?: number | undefined;
}

/** A part of a snippet that matched: `[start, end)` in UTF-16 code units of `snippet`. */
export type MatchRange = readonly [start: number, end: number];

/** One event whose text matched, newest first. Every text in it is redacted (docs/redaction.md). */
export interface SearchHit {
  /** `claude`, `codex`, `gemini` (as `sessions` names them). */
  readonly agent: string;
  readonly sessionId: string | null;
  /** The working directory the session ran in. */
  readonly project: string | null;
  readonly model: string | null;
  readonly status: SearchStatus;
  /** The session log. */
  readonly path: string;
  /** 1-based line of the record in `path` (null for an event the reader made up). */
  readonly line: number | null;
  /** The event's `seq` when the file is read with the default options: what `render --at` and `html --at` take. */
  readonly event: number;
  /** When, RFC 3339 (the event's time, else the session's start), or null. */
  readonly time: string | null;
  readonly field: SearchField;
  /** The tool's name, for a tool call's name, input or output. */
  readonly tool: string | null;
  /** The lines around the match (redacted text as the agent wrote it: sanitize before showing it on a terminal). */
  readonly snippet: string;
  /** Where the query matched in `snippet`. */
  readonly ranges: readonly MatchRange[];
}

export interface SearchResult {
  readonly hits: readonly SearchHit[];
  /** More hits past `offset + limit`. */
  readonly more: boolean;
}

/** What `update()` did: the files looked at, by what happened to them. */
export interface UpdateReport {
  /** Files read for the first time. */
  readonly added: number;
  /** Files that grew or changed since they were indexed: read again. */
  readonly changed: number;
  /** Files unchanged (same size, mtime and identity): not read. */
  readonly unchanged: number;
  /** Files indexed before that are gone (or no longer under the paths): their entries removed. */
  readonly removed: number;
  /** Sessions and indexed texts (events) now in the index. */
  readonly sessions: number;
  readonly documents: number;
  /** Paths named that do not exist. */
  readonly missing: readonly string[];
  /** Paths that could not be read, and why. */
  readonly failed: readonly { readonly path: string; readonly reason: string }[];
  readonly elapsedMs: number;
}

export interface SearchIndexOptions {
  /** Files and folders to search (walked as `sessions` walks them); none: the agents' standard locations. */
  readonly paths?: readonly string[] | undefined;
  /** HOME, XDG_CACHE_HOME and the agents' variables (CLAUDE_CONFIG_DIR, CODEX_HOME, ...). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * Where the index file goes: a folder (default: the cache folder of `usage`, $XDG_CACHE_HOME/agentstream), or
   * `false` for an index in memory only (built for this run, nothing on disk read or written).
   */
  readonly cacheDir?: string | false | undefined;
  /** Told one line when the index on disk could not be used (damaged, not a database, a link) and is made again. */
  readonly onNotice?: ((line: string) => void) | undefined;
}

/** An open index. `search` answers from what the last `update` saw; call `update` first. */
export interface SearchIndex {
  /** Reads what changed since the last update (new, grown, changed, removed files). */
  update(): UpdateReport;
  search(query: SearchQuery): SearchResult;
  /** Where the index is (`:memory:` when it is not on disk). */
  readonly location: string;
  close(): void;
}
