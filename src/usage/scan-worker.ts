/** A worker thread of the scan pool (scan-pool.ts): scans the files of each batch it is sent. */
import { parentPort } from "node:worker_threads";
import { type ScanRequest, scanOrFailure } from "./scan-file.ts";

parentPort?.on("message", (batch: ScanRequest[]) => {
  parentPort?.postMessage(batch.map((request) => scanOrFailure(request) ?? null));
});
