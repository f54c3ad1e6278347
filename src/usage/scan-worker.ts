/** A worker thread of the scan pool (scan-pool.ts): scans the files of each batch it is sent. */
import { parentPort } from "node:worker_threads";
import { scanFile, type ScanRequest } from "./scan-file.ts";

parentPort?.on("message", (batch: ScanRequest[]) => {
  parentPort?.postMessage(batch.map((request) => scanFile(request) ?? null));
});
