/**
 * The search worker thread (./search-service.ts): holds the index, so that building or updating it (reading every
 * changed log, SQLite writes) never holds up the server's own thread. Answers each request in the order it came.
 */
import { parentPort, workerData } from "node:worker_threads";
import { createSearcher, type SearcherOptions, type SearchRequest } from "./search-answer.ts";

/** A request as posted: its number, to match the answer. */
export interface WorkerRequest extends SearchRequest {
  readonly id: number;
}

const options = workerData as Omit<SearcherOptions, "onNotice">;
const searcher = createSearcher({ ...options, onNotice: (line) => parentPort?.postMessage({ notice: line }) });
parentPort?.on("message", (request: WorkerRequest) => {
  parentPort?.postMessage({ id: request.id, reply: searcher.answer(request) });
});
