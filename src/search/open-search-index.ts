/**
 * The search index's entry: `openSearchIndex(options)` → `update()`, `search(query)`, `close()` (docs/search.md).
 * The index is a cache of the session logs: when SQLite finds it damaged while in use, it is made again from the
 * logs and the call is answered from the new one.
 */
import { cacheDir } from "../usage/cache-dir.ts";
import { runSearch } from "./search.ts";
import { isDamage, openDb, remove, type OpenedDb } from "./store.ts";
import type { SearchIndex, SearchIndexOptions, SearchQuery, SearchResult, UpdateReport } from "./types.ts";
import { updateIndex } from "./update.ts";

/**
 * Opens (or makes) the index of the sessions under `options.paths` (none: the agents' standard locations). Call
 * `update()` before searching: it reads what changed since the index last saw the logs.
 * @example
 * const index = openSearchIndex({ env: process.env });
 * index.update();
 * const { hits } = index.search({ text: "formatDue", agents: ["codex"] });
 * index.close();
 */
export function openSearchIndex(options: SearchIndexOptions): SearchIndex {
  const dir = options.cacheDir === false ? undefined : (options.cacheDir ?? cacheDir(options.env));
  const notice = options.onNotice ?? (() => undefined);
  let opened: OpenedDb = openDb(dir, notice);
  let updated = false;

  /** Runs `work`; when SQLite finds the index damaged, makes it again from the logs and runs `work` once more. */
  const guarded = <T>(work: () => T): T => {
    try {
      return work();
    } catch (error) {
      if (!isDamage(error) || opened.location === ":memory:") throw error;
      notice(`agentstream: the search index ${opened.location} is damaged: made again`);
      opened.db.close();
      remove(opened.location);
      opened = openDb(dir, notice);
      if (updated) updateIndex(opened.db, options.paths, options.env);
      return work();
    }
  };

  return {
    get location() {
      return opened.location;
    },
    update(): UpdateReport {
      const report = guarded(() => updateIndex(opened.db, options.paths, options.env));
      updated = true;
      return report;
    },
    search(query: SearchQuery): SearchResult {
      if (!updated) this.update();
      return guarded(() => runSearch(opened.db, query));
    },
    close(): void {
      opened.db.close();
    },
  };
}
