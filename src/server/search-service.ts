/**
 * `GET /api/search`'s engine: the search index of the served sessions (src/search) in a worker thread of its own,
 * started at the first search. The first search builds the index (every served log read once) and a search after
 * the logs changed updates it; both run in the worker, so the page's list, its streams and every other request go on
 * meanwhile, and only searches wait for it (in order, one at a time). Under the TypeScript sources (tests) there is
 * no compiled worker: the index is asked on this thread.
 */
import { createHash } from "node:crypto";
import type { Worker } from "node:worker_threads";
import type { SearchQuery } from "../search/types.ts";
import type { SearchableFile } from "./catalog.ts";
import { createSearcher, type Searcher, type SearcherOptions, type SearchReply } from "./search-answer.ts";
import type { WorkerRequest } from "./search-worker.ts";

export interface SearchService {
  /** Searches `files` (the catalog's served logs), updating the index first when they changed since the last search. */
  search(files: readonly SearchableFile[], query: SearchQuery): Promise<SearchReply>;
  /** Stops the worker (a search still running is answered 500). */
  close(): Promise<void>;
}

type FromWorker = { readonly id: number; readonly reply: SearchReply } | { readonly notice: string };

export function createSearchService(options: SearcherOptions): SearchService {
  const workerUrl = new URL("./search-worker.js", import.meta.url);
  const compiled = import.meta.url.endsWith(".js");
  let inline: Searcher | undefined;
  let worker: Promise<Worker> | undefined;
  let nextId = 0;
  const pending = new Map<number, (reply: SearchReply) => void>();
  const failAll = (message: string): void => {
    for (const resolve of pending.values()) resolve({ ok: false, status: 500, message });
    pending.clear();
  };

  const startWorker = async (): Promise<Worker> => {
    const { Worker } = await import("node:worker_threads");
    const { onNotice, ...data } = options;
    const started = new Worker(workerUrl, { execArgv: [], workerData: data });
    started.on("message", (message: FromWorker) => {
      if ("notice" in message) return onNotice?.(message.notice);
      pending.get(message.id)?.(message.reply);
      pending.delete(message.id);
    });
    started.on("error", (error) => {
      failAll(`search failed: ${error.message}`);
      worker = undefined; // the next search starts another
    });
    started.unref();
    return started;
  };

  return {
    async search(files, query) {
      const request = { files: files.map((file) => file.path), stamp: stampOf(files), query };
      if (!compiled) {
        inline ??= createSearcher(options);
        return inline.answer(request);
      }
      worker ??= startWorker();
      const running = await worker;
      const id = nextId++;
      const answered = new Promise<SearchReply>((resolve) => pending.set(id, resolve));
      running.postMessage({ id, ...request } satisfies WorkerRequest);
      return answered;
    },
    async close() {
      inline?.close();
      failAll("the server is closing");
      const running = worker;
      worker = undefined;
      await (await running)?.terminate();
    },
  };
}

/** What changes when any served log does: each one's path, size and modification time. */
function stampOf(files: readonly SearchableFile[]): string {
  const hash = createHash("sha256");
  for (const file of files) hash.update(`${file.path}\0${file.size}\0${file.mtimeMs}\n`);
  return hash.digest("base64url");
}
