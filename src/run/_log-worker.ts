/**
 * The log worker: serializes and appends the events and oneshot logs on the second core while the
 * main thread parses the agent's stdout and serves the consumer. The files are opened (and the raw
 * and stderr copies written) by the main thread; this thread only appends to the two fds it is given.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { AgentEvent } from "../model/events.ts";
import { HeldStrings } from "../framing/held-strings.ts";
import { createLogLineWriter, restoreLosslessIntegers } from "./_log-lines.ts";
import type { LogWorkerData, ToLogWorker } from "./_logs.ts";
import { unpackDeltas } from "./_packed-deltas.ts";

const port = parentPort;
if (port !== null) {
  const data = workerData as LogWorkerData;
  // The main thread's held strings: its nonce, and the bytes each batch brings.
  const held = data.nonce === undefined ? undefined : new HeldStrings({ nonce: data.nonce });
  const writer = createLogLineWriter(data, held, data.runId);
  port.on("message", (message: ToLogWorker) => {
    if (message.type === "events") {
      const events = message.events as AgentEvent[];
      for (const [index, paths] of message.lossless) restoreLosslessIntegers(events[index], paths);
      const bytes = message.strings;
      if (bytes !== undefined) for (const [key, at, length] of bytes.entries) held?.adopt(key, bytes.bytes.subarray(at, at + length));
      writer.write(message.packed === undefined ? events : unpackDeltas(events, message.packed), message.plainJson);
      if (bytes !== undefined) for (const [key] of bytes.entries) held?.release(key);
      port.postMessage({ type: "written", bytes: message.bytes });
      return;
    }
    writer.end();
    port.postMessage({ type: "ended" });
  });
}
