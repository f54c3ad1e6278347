/**
 * Scans many files on every core: worker threads take batches of files (the biggest first, so no thread is
 * left with one large file at the end) and send back what each file gave. Few or small files are scanned on
 * this thread: starting workers would cost more than it saves. Each worker holds one file at a time, in chunks,
 * so memory does not grow with the number of files.
 */
import { availableParallelism } from "node:os";
import { type ScanFailure, type ScanRequest, scanOrFailure } from "./scan-file.ts";
import { compactColumns } from "./columns.ts";
import type { FileScan } from "./types.ts";

/** Below this much to read, one thread is faster than starting workers. */
const WORKER_MIN_BYTES = 32 * 1024 * 1024;
const BATCH_FILES = 32;

/**
 * A worker's young generation, in MB (a Worker option, not a V8 flag). A worker holds one file's records and a
 * batch's results; what it makes for a line dies with the line. Left to itself, V8 grows each worker's young
 * generation to tens of MB and shrinks it again, and every page it takes anew is a page fault, slow on a VM:
 * capped, a first run over 1 GB was faster and lighter (docs/usage.md, "Scale").
 */
const WORKER_YOUNG_MB = 2;

export interface PoolOptions {
  /** Worker threads to use; 1 scans on this thread. Default: the cores available. */
  readonly threads?: number | undefined;
  /** Told how the scan will run, before it starts. */
  readonly onPlan?: ((plan: ScanPlan) => void) | undefined;
}

/** How a scan runs: the bytes it reads (appended files from where they were left), and on how many workers (0: this thread). */
export interface ScanPlan {
  readonly bytes: number;
  readonly workers: number;
}

/** Every request's scan, in the order given: why, where a file could not be read; undefined where it is not a session log. */
export async function scanFiles(
  requests: readonly (ScanRequest & { readonly size: number })[],
  options: PoolOptions = {},
): Promise<(FileScan | ScanFailure | undefined)[]> {
  const bytes = requests.reduce((sum, r) => sum + Math.max(0, r.size - (r.previous?.offset ?? 0)), 0);
  const threads = Math.min(options.threads ?? availableParallelism(), Math.ceil(requests.length / 4));
  const workerUrl = new URL("./scan-worker.js", import.meta.url);
  // Under the TypeScript sources (tests) there is no compiled worker: scan here.
  const compiled = import.meta.url.endsWith(".js");
  const here = threads < 2 || !compiled || (options.threads === undefined && bytes < WORKER_MIN_BYTES);
  options.onPlan?.({ bytes, workers: here ? 0 : threads });
  if (here) return requests.map((r) => scanOrFailure(r));
  return runPool(requests, threads, workerUrl);
}

async function runPool(
  requests: readonly (ScanRequest & { readonly size: number })[],
  threads: number,
  url: URL,
): Promise<(FileScan | ScanFailure | undefined)[]> {
  // Imported here, not at the top: a run that scans on this thread (the re-runs) does not load worker threads.
  const { Worker } = await import("node:worker_threads");
  const results: (FileScan | ScanFailure | undefined)[] = new Array(requests.length);
  const order = requests.map((_, i) => i).sort((a, b) => (requests[b]?.size ?? 0) - (requests[a]?.size ?? 0));
  let next = 0;
  const takeBatch = (): number[] => {
    const batch = order.slice(next, next + BATCH_FILES);
    next += batch.length;
    return batch;
  };
  const runWorker = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const worker = new Worker(url, { resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_MB } });
      let batch = takeBatch();
      const send = (): void => {
        if (batch.length === 0) {
          void worker.terminate().then(() => resolve());
          return;
        }
        worker.postMessage(batch.map((i) => forWorker(requests[i] as ScanRequest)));
      };
      worker.on("message", (scans: (FileScan | ScanFailure | null)[]) => {
        batch.forEach((index, k) => {
          results[index] = scans[k] ?? undefined;
        });
        batch = takeBatch();
        send();
      });
      worker.on("error", reject);
      send();
    });
  await Promise.all(Array.from({ length: threads }, runWorker));
  return results;
}

/** A request as posted: an earlier scan's columns (views of the loaded cache) in a block of their own, so that only they are copied. */
function forWorker(request: ScanRequest): ScanRequest {
  const previous = request.previous;
  return previous === undefined ? request : { ...request, previous: { ...previous, records: compactColumns(previous.records) } };
}
