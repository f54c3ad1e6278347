/**
 * The HTML export sink: each session of each input becomes one self-contained page. A session's
 * events are cut to the export's caps as they arrive (views/html/embed.ts); a finished session is
 * handed to `deliver` (written at once to a directory, or held for one file / stdout).
 */
import type { AgentEvent } from "../../model/events.ts";
import type { RedactionCounts } from "../../stages/redact/redact-text.ts";
import { createSessionEmbedder, type EmbedCaps, type SessionEmbedder } from "../../views/html/embed.ts";
import type { ExportedSession } from "../../views/shared/exported-session.ts";
import { VERSION } from "../../version.ts";
import type { Sink } from "./sink.ts";

/** A finished session, with what its file name and page title are made of. */
export interface FinishedSession {
  readonly input: string;
  /** 0-based session number within its input. */
  readonly index: number;
  readonly session: ExportedSession;
  readonly agent: string | undefined;
  readonly sessionId: string | undefined;
  readonly firstPrompt: string | undefined;
}

interface OpenSession {
  embedder: SessionEmbedder;
  agent: string | undefined;
  sessionId: string | undefined;
  firstPrompt: string | undefined;
  index: number;
  redactionsFrom: RedactionCounts;
}

/** A sink that hands each finished session to `deliver`. */
export function createHtmlSink(caps: EmbedCaps | undefined, deliver: (finished: FinishedSession) => void): Sink {
  const open = new Map<string, OpenSession>();
  const fresh = (index: number, redactionsFrom: RedactionCounts): OpenSession => ({
    embedder: createSessionEmbedder(caps),
    agent: undefined,
    sessionId: undefined,
    firstPrompt: undefined,
    index,
    redactionsFrom,
  });
  const sessionOf = (input: string): OpenSession => {
    let found = open.get(input);
    if (found === undefined) {
      found = fresh(0, {});
      open.set(input, found);
    }
    return found;
  };
  const finish = (input: string, s: OpenSession, dialect: string | undefined, redactionsTo: RedactionCounts): void => {
    const redactions = since(redactionsTo, s.redactionsFrom);
    const header = {
      input,
      generator: `agentstream ${VERSION}`,
      ...(dialect === undefined ? {} : { dialect }),
      ...(Object.keys(redactions).length === 0 ? {} : { redactions }),
    };
    const { agent, sessionId, firstPrompt, index } = s;
    deliver({ input, index, session: s.embedder.result(header), agent, sessionId, firstPrompt });
  };
  return {
    event(event, input) {
      const s = sessionOf(input);
      note(s, event);
      s.embedder.add(event);
    },
    sessionBoundary(boundary, input) {
      const ended = sessionOf(input);
      finish(input, ended, boundary.previousDialect, boundary.redactionsBefore);
      open.set(input, fresh(ended.index + 1, boundary.redactionsBefore));
    },
    endInput(run) {
      const last = sessionOf(run.name);
      open.delete(run.name);
      // An input that gave nothing readable (exit 4) makes no page, even when it held records no dialect
      // claimed (kept as opaque events): the pipeline said why on stderr.
      if (run.unreadable === undefined) finish(run.name, last, run.reader.dialect, run.reader.redactions);
    },
    end() {},
  };
}

/** Keeps what names the session: its agent, id and first prompt. */
function note(s: OpenSession, event: AgentEvent): void {
  if (event.type === "session.started" && event.parentSessionId === undefined && event.parentToolCallId === undefined) {
    s.agent ??= event.agent;
    s.sessionId ??= event.sessionId;
  }
  if (event.type === "message.completed" && event.role === "user" && event.kind === "text" && s.firstPrompt === undefined)
    s.firstPrompt = event.text;
  s.sessionId ??= event.sessionId;
}

function since(to: RedactionCounts, from: RedactionCounts): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [kind, count] of Object.entries(to)) {
    const n = count - ((from as Record<string, number>)[kind] ?? 0);
    if (n > 0) out[kind] = n;
  }
  return out;
}
