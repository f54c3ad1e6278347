/**
 * The served sessions' search index, held by whoever runs it (the search worker thread, or the server's own thread
 * under the TypeScript sources): one `openSearchIndex` over the session logs the catalog found, brought up to date
 * before a search whenever those logs changed (another set of files, or one grown, rewritten or gone), then asked.
 */
import { AgentStreamError } from "../errors.ts";
import { openSearchIndex } from "../search/open-search-index.ts";
import type { SearchIndex, SearchQuery, SearchResult } from "../search/types.ts";

/** One search as the server asks it. */
export interface SearchRequest {
  /** The served session logs, by real path: the index searches these and nothing else. */
  readonly files: readonly string[];
  /** A digest of the files with their sizes and times: when it differs from the last one, the index is updated first. */
  readonly stamp: string;
  readonly query: SearchQuery;
}

/** The answer, as a value (it crosses a thread): hits, or what was wrong with the query (400) or the index (500). */
export type SearchReply =
  | { readonly ok: true; readonly result: SearchResult }
  | { readonly ok: false; readonly status: 400 | 500; readonly message: string };

/** Where the index lives and who hears of a damaged one. */
export interface SearcherOptions {
  /** HOME and XDG_CACHE_HOME (the index file is in the cache folder of `usage`, shared with `agentstream search`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The folder of the index file, or `false` for one in memory. @defaultValue the cache folder */
  readonly cacheDir?: string | false | undefined;
  readonly onNotice?: ((line: string) => void) | undefined;
}

export interface Searcher {
  answer(request: SearchRequest): SearchReply;
  close(): void;
}

export function createSearcher(options: SearcherOptions): Searcher {
  let paths: readonly string[] = [];
  let index: SearchIndex | undefined;
  let stamp: string | undefined;
  const open = (): SearchIndex =>
    openSearchIndex({
      env: options.env,
      cacheDir: options.cacheDir,
      onNotice: options.onNotice,
      // Read at each update: the served files of the latest request.
      get paths() {
        return paths;
      },
    });
  return {
    answer(request) {
      // No paths would mean the agents' standard locations to the index: nothing served, nothing to find.
      if (request.files.length === 0) return { ok: true, result: { hits: [], more: false } };
      try {
        index ??= open();
        if (request.stamp !== stamp) {
          paths = request.files;
          index.update();
          stamp = request.stamp;
        }
        return { ok: true, result: index.search(request.query) };
      } catch (error) {
        if (error instanceof AgentStreamError && error.code === "usage") return { ok: false, status: 400, message: error.message };
        return { ok: false, status: 500, message: `search failed: ${error instanceof Error ? error.message : String(error)}` };
      }
    },
    close() {
      index?.close();
      index = undefined;
    },
  };
}
