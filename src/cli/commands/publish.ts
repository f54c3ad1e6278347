import { AgentStreamError } from "../../errors.ts";
import { createPublisher } from "../../fleet/publisher.ts";
import { parseDuration } from "../../run/duration.ts";
import { readInputs, readingStatus } from "../input.ts";
import { defineCommand } from "../args.ts";
import { safeLine } from "../diagnostics.ts";
import { EXIT } from "../exit.ts";
import { natsConnectionOptions, publishingOptions, requireServers, toPublisherOptions } from "../fleet-options.ts";
import { readingOptions } from "../reading-options.ts";
import { createPublisherSink, describePublishReport } from "../sinks/publisher-sink.ts";
import { sourcesFromArguments } from "../sources/files.ts";

export const publish = defineCommand({
  name: "publish",
  summary: "publish any agent's stream to NATS JetStream, one subject per session (docs/fleet.md)",
  usage: "publish <nats-url> [options] [file ...]",
  description: `Reads agent output (files, or stdin when none or "-"), normalizes and redacts it, and publishes
every event to agentstream.<host>.<agent>.<session> on a JetStream stream (created when missing),
in order, each event once (its message id is its session and seq). While the server is down the
events wait in an on-disk spool and are sent when it is back; what did not fit is counted.
Several servers: comma-separated URLs. Passwords in URLs are never printed.`,
  options: { ...natsConnectionOptions, ...publishingOptions, ...readingOptions },
  epilog: `Exit status: 0 every event was stored, 3 some were dropped or still wait in the spool (the next
publish on this host sends them), 2 usage error, 4 nothing could be read.`,
  examples: [
    "agentstream publish nats://127.0.0.1:4222 session.jsonl",
    'claude -p "fix the tests" --output-format stream-json --verbose | agentstream publish nats://nats.internal:4222',
  ],
  async run({ values, positionals, io }) {
    const [url, ...files] = positionals;
    const servers = requireServers("publish", url);
    if (values["no-redact"]) throw new AgentStreamError("usage", "--no-redact: publish always redacts (the stream is shared)");
    const say = (text: string): void => {
      if (!values.quiet) void io.stderr.write(`${safeLine(`agentstream publish: ${text}`)}\n`);
    };
    const flushTimeoutMs = parseDuration("--flush-timeout", values["flush-timeout"]);
    const publisher = createPublisher(toPublisherOptions(servers, values, io, say));
    const sink = createPublisherSink(publisher, flushTimeoutMs);
    let runs: Awaited<ReturnType<typeof readInputs>>;
    try {
      runs = await readInputs({ sources: sourcesFromArguments(files, io), io, reading: values, sink, pace: () => publisher.room() });
    } catch (error) {
      // An input that cannot be read ends the command; what was read before it is still sent (or spooled).
      if (sink.report === undefined)
        await io.stderr.write(`${safeLine(`agentstream publish: ${describePublishReport(await sink.close())}`)}\n`);
      throw error;
    }
    const report = sink.report;
    if (report === undefined) return EXIT.io;
    const lost = report.dropped > 0 || report.waiting > 0;
    // A loss is said even with -q: never silent.
    if (lost || !values.quiet) await io.stderr.write(`${safeLine(`agentstream publish: ${describePublishReport(report)}`)}\n`);
    const status = readingStatus(runs, values);
    return status === EXIT.ok && lost ? EXIT.io : status;
  },
});
