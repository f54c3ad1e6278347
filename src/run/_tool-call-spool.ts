/**
 * The summary log's list of tool calls, kept on disk instead of in memory: one entry per call of the
 * whole run is the one part of a run's state that grows with the agent's output (at 1 GB of a Claude
 * stream, tens of MB of the peak, and a live heap that every full collection marks again). A call is
 * held while it is open; when it completes its entry is appended to a spool file beside the logs and
 * dropped. At the end the spool is read back, a chunk at a time, into the summary log.
 *
 * The spooled list is in the order the calls completed; the calls still open at the end follow, in
 * the order they started, as `incomplete`. A call completed twice counts once while it is among the
 * last SETTLED_IDS calls (older ids are forgotten, or the set would grow with the run too).
 */
import { closeSync, openSync, readSync, unlinkSync } from "node:fs";
import type { AgentEvent } from "../model/events.ts";
import type { ToolCallStatus } from "../summary/summarize.ts";
import { writeAll } from "./_log-lines.ts";

interface ToolCallEntry {
  readonly id: string;
  readonly name: string;
  status: ToolCallStatus;
}

export interface ToolCallSpool {
  /** Folds one event (tool.started, tool.completed; the rest are ignored). */
  add(event: AgentEvent): void;
  /** Calls held in memory: the open ones. */
  readonly held: number;
  /**
   * Writes the list to `fd` as the elements of a JSON array pretty-printed at `indent` (as
   * `JSON.stringify(list, null, 2)` nests them), then removes the spool file. Returns how many it wrote.
   */
  writeTo(fd: number, indent: string): number;
  /** Removes the spool file (a run whose summary could not be written). */
  discard(): void;
}

/** Completed ids remembered to ignore a second completion (or a start after the end) of the same call. */
const SETTLED_IDS = 4096;
/** Spooled text gathered before one write. */
const SPOOL_WRITE_CHARS = 64 * 1024;
/** Bytes read back at a time. */
const READ_CHUNK = 256 * 1024;

/** `path`: the spool file (created 0600, removed by `writeTo` or `discard`). */
export function createToolCallSpool(path: string): ToolCallSpool {
  const fd = openSync(path, "w+", 0o600);
  let open = true;
  const calls = new Map<string, ToolCallEntry>();
  const settled = new Set<string>();
  let pending = "";
  let count = 0;
  const settle = (entry: ToolCallEntry): void => {
    pending += `${JSON.stringify(entry)}\n`;
    count++;
    settled.add(entry.id);
    if (settled.size > SETTLED_IDS) settled.delete(settled.values().next().value as string);
    if (pending.length >= SPOOL_WRITE_CHARS) flush();
  };
  const flush = (): void => {
    if (pending === "") return;
    writeAll(fd, pending);
    pending = "";
  };
  const close = (): void => {
    if (!open) return;
    open = false;
    closeSync(fd);
    unlinkSync(path);
  };
  return {
    add(event) {
      if (event.type === "tool.started") {
        if (!calls.has(event.toolCallId) && !settled.has(event.toolCallId))
          calls.set(event.toolCallId, { id: event.toolCallId, name: event.name, status: "incomplete" });
      } else if (event.type === "tool.completed") {
        if (settled.has(event.toolCallId)) return;
        const status: ToolCallStatus = event.isError ? "error" : "success";
        const known = calls.get(event.toolCallId);
        calls.delete(event.toolCallId);
        settle(known === undefined ? { id: event.toolCallId, name: event.name ?? "", status } : { ...known, status });
      }
    },
    get held() {
      return calls.size;
    },
    writeTo(out, indent) {
      for (const entry of calls.values()) settle(entry);
      calls.clear();
      flush();
      const element = (line: string): string => `${indent}${JSON.stringify(JSON.parse(line), null, 2).replaceAll("\n", `\n${indent}`)}`;
      const buffer = Buffer.alloc(READ_CHUNK);
      const decoder = new TextDecoder();
      let position = 0;
      let rest = "";
      let written = 0;
      for (;;) {
        const read = readSync(fd, buffer, 0, READ_CHUNK, position);
        position += read;
        const lines = (rest + decoder.decode(buffer.subarray(0, read), { stream: read > 0 })).split("\n");
        rest = lines.pop() as string;
        if (lines.length > 0) {
          writeAll(out, `${written === 0 ? "\n" : ",\n"}${lines.map(element).join(",\n")}`);
          written += lines.length;
        }
        if (read === 0) break;
      }
      if (written !== count) throw new Error(`the tool-call spool lost entries (${written} of ${count})`);
      close();
      return written;
    },
    discard: close,
  };
}
