/**
 * Sessions read side by side (`tail` over many agents): each session gets its own sink (its own
 * renderer or writer, so one session's open message never swallows another's lines), created at
 * its first event. In the terminal view, each line can carry a prefix naming its session, written
 * only once the line is complete, so lines of different sessions never mix.
 */
import { sanitizeForTerminal } from "../../views/shared/sanitize.ts";
import { paint } from "../../views/shared/color.ts";
import type { RenderMode } from "../../views/shared/types.ts";
import type { BatchedOutput } from "../output.ts";
import type { Sink } from "./sink.ts";

/** Routes each event to the sink of its session (`input` names the session); ends them all at the end. */
export function createPerSessionSink(create: (session: string) => Sink): Sink {
  const sinks = new Map<string, Sink>();
  return {
    event(event, session) {
      let sink = sinks.get(session);
      if (sink === undefined) {
        sink = create(session);
        sinks.set(session, sink);
      }
      sink.event(event, session);
    },
    async end(runs) {
      for (const sink of sinks.values()) await sink.end(runs);
    },
  };
}

/** Output whose complete lines go to `target` behind `prefix`; `end` writes an unfinished last line. */
export interface PrefixedOutput extends BatchedOutput {
  end(): void;
}

export function createPrefixedOutput(target: BatchedOutput, prefix: string): PrefixedOutput {
  let partial = "";
  const write = (text: string): void => {
    const lines = (partial + text).split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) target.write(`${prefix}${line}\n`);
  };
  return {
    write,
    // Lines are cut in text: bytes are decoded first (they are whole UTF-8 text, such as a shared tool output).
    writeBytes: (bytes) => write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("utf8")),
    flush: () => target.flush(),
    end() {
      if (partial !== "") target.write(`${prefix}${partial}\n`);
      partial = "";
    },
  };
}

/** `[ci-7 claude-code 3f2a9c1e] `: names from the subject are untrusted text, sanitized before styling. */
export function sessionPrefix(mode: RenderMode, names: { host: string; agent: string; session: string }): string {
  const label = sanitizeForTerminal(`${names.host} ${names.agent} ${names.session.slice(0, 8)}`.replace(/[\r\n\t]/g, " "));
  return `${paint(mode, "meta", `[${label}]`)} `;
}
