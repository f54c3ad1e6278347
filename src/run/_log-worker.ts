/**
 * The log worker: serializes and appends the events and oneshot logs on the second core while the
 * main thread parses the agent's stdout and serves the consumer. The files are opened (and the raw
 * and stderr copies written) by the main thread; this thread only appends to the two fds it is given.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { AgentEvent } from "../model/events.ts";
import { createLogLineWriter, restoreLosslessIntegers, type LogLineFds } from "./_log-lines.ts";
import type { ToLogWorker } from "./_logs.ts";
import { unpackDeltas } from "./_packed-deltas.ts";
import { restoreRepeatedOutput } from "./_shared-strings.ts";

const port = parentPort;
if (port !== null) {
  const writer = createLogLineWriter(workerData as LogLineFds);
  port.on("message", (message: ToLogWorker) => {
    if (message.type === "events") {
      const events = message.events as AgentEvent[];
      for (const [index, keys] of message.repeats) restoreRepeatedOutput(events[index] as AgentEvent, keys);
      for (const [index, paths] of message.lossless) restoreLosslessIntegers(events[index], paths);
      writer.write(message.packed === undefined ? events : unpackDeltas(events, message.packed));
      port.postMessage({ type: "written", bytes: message.bytes });
      return;
    }
    writer.end();
    port.postMessage({ type: "ended" });
  });
}
