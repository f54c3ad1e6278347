import { AgentStreamError } from "../../errors.ts";
import { parseSubject, type SessionAddress } from "../../fleet/subjects.ts";
import { stripSgr } from "../../views/shared/sanitize.ts";
import { getOutputFormat, outputFormats } from "../../output-formats.ts";
import { defineCommand, type ParsedValues } from "../args.ts";
import { createDiagnostics } from "../diagnostics.ts";
import { EXIT } from "../exit.ts";
import { natsConnectionOptions, parseSince, requireServers, toNatsConnectOptions } from "../fleet-options.ts";
import type { CliIo } from "../io.ts";
import { viewVerbosity, viewWidth } from "../view-options.ts";
import { createLiveOutput, type LiveOutput } from "../output.ts";
import { createPerSessionSink, createPrefixedOutput, sessionPrefix } from "../sinks/per-session-sink.ts";
import { createRecordSink } from "../sinks/record-sink.ts";
import { createRendererSink } from "../sinks/renderer-sink.ts";
import type { Sink } from "../sinks/sink.ts";
import { natsEvents } from "../sources/nats.ts";
import { chooseMode } from "./render.ts";

const tailOptions = {
  session: { type: "string", valueHint: "<id>", description: "only this session" },
  agent: { type: "string", valueHint: "<name>", description: "only this agent: the dialect that read it (claude, codex, gemini, ...)" },
  host: { type: "string", valueHint: "<name>", description: "only the sessions of this host" },
  since: {
    type: "string",
    valueHint: "<point>",
    description: "start at: all | a stream sequence | a time (RFC 3339) | a duration back from now (10m) (default: new events only)",
  },
  "no-follow": {
    type: "boolean",
    default: false,
    description: "stop once the events stored so far were read (default: follow until Ctrl-C)",
  },
  durable: {
    type: "string",
    valueHint: "<name>",
    description: "read through a durable consumer of this name: it keeps its place, so the next tail resumes where this one stopped",
  },
  to: {
    type: "string",
    valueHint: "<format>",
    description: `write this format instead of the view (one writer per session); one of: ${outputFormats.map((f) => f.name).join(", ")}`,
  },
  mode: {
    type: "string",
    valueHint: "<mode>",
    choices: ["full", "basic", "none"],
    description: "view: full | basic | none (default: from the terminal)",
  },
  width: { type: "string", valueHint: "<n>", description: "view: fit one-line slots to n columns" },
  quiet: {
    type: "boolean",
    short: "q",
    default: false,
    description: "view: answers, tool calls, errors and the footer only; no diagnostics",
  },
  verbose: { type: "boolean", short: "v", default: false, description: "view: also notices, repairs, unknown records" },
  ...natsConnectionOptions,
} as const;

type TailValues = ParsedValues<typeof tailOptions>;

export const tail = defineCommand({
  name: "tail",
  summary: "watch the sessions published to NATS JetStream, live or from any point (docs/fleet.md)",
  usage: "tail <nats-url> [options]",
  description: `Shows the events that agentstream publish and run --publish sent to NATS: all sessions or some
(--session, --agent, --host), live, or replayed from any point (--since). Each session gets its own
view; when several are shown, each line starts with [host agent session]. With --to, each session
gets its own writer (--to agentstream: the events as NDJSON). With --durable, the server keeps the
reader's place: a reader that stopped or fell behind resumes where it was, and never slows a publisher.`,
  options: tailOptions,
  epilog: "Exit status: 0 ok (Ctrl-C included), 2 usage error, 3 the server or the stream could not be reached.",
  examples: [
    "agentstream tail nats://127.0.0.1:4222",
    "agentstream tail nats://127.0.0.1:4222 --agent codex --since 1h",
    "agentstream tail nats://127.0.0.1:4222 --since all --no-follow --to agentstream > fleet.ndjson",
  ],
  async run({ values, positionals, io }) {
    const [url, ...rest] = positionals;
    const servers = requireServers("tail", url);
    if (rest.length > 0) throw new AgentStreamError("usage", `tail reads from NATS, not files: remove ${rest.join(" ")}`);
    const filter: Partial<SessionAddress> = {
      ...(values.session === undefined ? {} : { session: values.session }),
      ...(values.agent === undefined ? {} : { agent: values.agent }),
      ...(values.host === undefined ? {} : { host: values.host }),
    };
    const output = createLiveOutput(io.stdout);
    const sink = createTailSink(values, io, output);
    const diagnostics = createDiagnostics(io.stderr);
    const events = natsEvents(
      {
        connection: toNatsConnectOptions(servers, values, io),
        stream: values.stream,
        filter,
        since: parseSince(values.since),
        durable: values.durable,
        follow: !values["no-follow"],
        onIssue(issue) {
          if (!values.quiet) diagnostics.issue(issue, issue.file ?? "nats");
        },
      },
      io,
    );
    try {
      for await (const { event, subject } of events) {
        sink.event(event, subject);
        await output.settle();
      }
    } finally {
      await sink.end([]);
      await output.flush();
      await diagnostics.summarize();
    }
    return EXIT.ok;
  },
});

/** One writer per session (`--to`), or one renderer per session, its lines prefixed unless one session is asked for. */
function createTailSink(values: TailValues, io: CliIo, output: LiveOutput): Sink {
  if (values.to !== undefined) {
    const format = getOutputFormat(values.to);
    return createPerSessionSink(() => createRecordSink(format, {}, output));
  }
  const mode = chooseMode(values.mode, io);
  const view = { mode, width: viewWidth(values.width, io), verbosity: viewVerbosity(values) };
  if (values.session !== undefined) return createPerSessionSink(() => createRendererSink(view, output));
  return createPerSessionSink((subject) => {
    const names = parseSubject(subject) ?? { host: "?", agent: "?", session: subject };
    const prefix = sessionPrefix(mode, names);
    const prefixed = createPrefixedOutput(output, prefix);
    // The prefix takes part of each line: the view fits what is left.
    const renderer = createRendererSink({ ...view, width: Math.max(20, view.width - stripSgr(prefix).length) }, prefixed);
    return {
      event: (event, input) => renderer.event(event, input),
      async end(runs) {
        await renderer.end(runs);
        prefixed.end();
      },
    };
  });
}
