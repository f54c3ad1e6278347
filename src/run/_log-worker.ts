/**
 * The log worker: serializes and appends the events and oneshot logs on the second core while the
 * main thread parses the agent's stdout and serves the consumer. The files are opened (and the raw
 * and stderr copies written) by the main thread; this thread only appends to the two fds it is given.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { AgentEvent } from "../model/events.ts";
import { StringRegistry } from "../framing/shared-strings.ts";
import { createLogLineWriter, restoreLosslessIntegers } from "./_log-lines.ts";
import type { LogWorkerData, ToLogWorker } from "./_logs.ts";
import { unpackDeltas } from "./_packed-deltas.ts";
import { restoreRepeatedOutput } from "./_shared-strings.ts";

const port = parentPort;
if (port !== null) {
  const data = workerData as LogWorkerData;
  // The main thread's stand-ins: its nonce, and the input strings' bytes each batch brings.
  const registry = new StringRegistry(data.nonce);
  const writer = createLogLineWriter(data, registry, data.runId);
  port.on("message", (message: ToLogWorker) => {
    if (message.type === "events") {
      const events = message.events as AgentEvent[];
      for (const [index, keys] of message.repeats) restoreRepeatedOutput(events[index] as AgentEvent, keys);
      for (const [index, paths] of message.lossless) restoreLosslessIntegers(events[index], paths);
      const held = message.strings;
      if (held !== undefined) {
        for (const [key, json] of held.shared) registry.adopt(key, json);
        for (const [key, at, length] of held.entries) registry.adopt(key, held.bytes.subarray(at, at + length));
      }
      writer.write(message.packed === undefined ? events : unpackDeltas(events, message.packed));
      if (held !== undefined) {
        for (const [key] of held.shared) registry.releaseKey(key);
        for (const [key] of held.entries) registry.releaseKey(key);
      }
      port.postMessage({ type: "written", bytes: message.bytes });
      return;
    }
    writer.end();
    port.postMessage({ type: "ended" });
  });
}
