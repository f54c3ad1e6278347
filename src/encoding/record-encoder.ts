/**
 * The encoder contract: a format's encoder turns our events into that format's records (objects,
 * never text). Framing them as NDJSON, SSE or json-seq is src/framing/'s job.
 */
import type { AgentEvent, Usage } from "../model/events.ts";

/** A streaming encoder: records for each event as it comes, and whatever must close the stream. */
export interface RecordEncoder<R extends object = object> {
  /** The records for one event (possibly none; may hold records back until a later event). */
  encode(event: AgentEvent): R[];
  /** The rest of the records once the input has ended. */
  end(): R[];
  /**
   * A closing document for people, written pretty-printed after the framed stream (codex-thread's
   * `--final-summary`); called after `end`.
   */
  trailer?(): object | undefined;
}

/** Options the encoders understand; each format reads the ones it declares. */
export interface EncoderOptions {
  /** AAEP: re-chunk streamed text at sentence boundaries (`--coalesce sentence`); chunks still concatenate to the original text. */
  coalesce?: "none" | "sentence";
  /** codex-thread: print the final pretty JSON summary after the stream (`--final-summary`). */
  finalSummary?: boolean;
  /** The events come from `agentstream run`, which knows more than its stream says (docs/run.md); absent for `convert`. */
  run?: RunFacts;
  /**
   * witness: the seed's dual-brain labels, its migration from Harmony channels: `brain: "path1"` on every
   * `analysis` line, `brain: "path2"` on every `final` line (`--dual-brain`); otherwise `brain` is the message's channel.
   */
  dualBrain?: boolean;
  /** otlp: write prompts, answers, tool arguments and results (`--capture-content`; always after redaction). */
  captureContent?: boolean;
  /** otlp: `OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental`: the pinned GenAI conventions only (docs/otel.md). */
  latestConventionsOnly?: boolean;
  /** otlp: the resource's attributes (`OTEL_RESOURCE_ATTRIBUTES`, `OTEL_SERVICE_NAME`). */
  resourceAttributes?: Readonly<Record<string, string>>;
  /**
   * otlp: a fresh fold of one session's facts, `summary --json`'s own builder (src/otel/facts.ts), so the session span
   * says what the summary says. Handed in because the summary sits beside the encoders; without it, the session's end
   * record's figures are used.
   */
  sessionFacts?: () => SessionFacts;
}

/** The facts `summary --json` prints about one session, as far as a writer needs them. */
interface SessionFactsResult {
  readonly usage: Usage;
  readonly status: string;
  readonly error: string | null;
  readonly costUsd: number | null;
  readonly costEstimated: boolean;
  readonly turns: number | null;
  readonly subagents: number;
  readonly repairs: Readonly<Record<string, number>>;
  readonly finalText: string | null;
}

/** Folds one session's events into its facts. */
export interface SessionFacts {
  add(event: AgentEvent): void;
  result(dialect: string | undefined): SessionFactsResult;
}

/** What `agentstream run` knows beyond the agent's stream. */
export interface RunFacts {
  /** The run's id (its log files' name): the session id of a stream that names none (oneshot_id, thread_id). */
  readonly runId: string;
  /** The task: `run --task`, else the prompt the agent's command line names; absent when neither says one. */
  readonly task?: string;
}
