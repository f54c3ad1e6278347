import { readdirSync, realpathSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { AgentStreamError } from "../../errors.ts";
import { resourceOf } from "../../formats/otlp/encode.ts";
import { SpanMapper } from "../../formats/otlp/spans.ts";
import type { FinishedSpan } from "../../formats/otlp/wire.ts";
import { latestConventionsOnly, otlpExportConfig, resourceAttributesFromEnv, type OtlpExportConfig } from "../../otel/config.ts";
import { ExportedSessions, exportedStatePath } from "../../otel/exported.ts";
import { summaryFacts } from "../../otel/facts.ts";
import { serializeSpans } from "../../otel/serialize.ts";
import { sendTraces } from "../../otel/send.ts";
import { readInputs } from "../input.ts";
import { defineCommand } from "../args.ts";
import { EXIT } from "../exit.ts";
import type { CliIo } from "../io.ts";
import { readingOptions } from "../reading-options.ts";
import type { Sink } from "../sinks/sink.ts";
import { sourcesFromArguments } from "../sources/files.ts";

/** Options every OTLP export shares (`otlp`, and `run --otlp` through its own names). */
const exportOptions = {
  protocol: {
    type: "string",
    valueHint: "<protocol>",
    choices: ["http/protobuf", "http/json"],
    description: "http/protobuf (default) | http/json (else OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL)",
  },
  headers: { type: "string", valueHint: "<k=v,...>", description: "request headers, over OTEL_EXPORTER_OTLP_[TRACES_]HEADERS" },
  "export-timeout": {
    type: "string",
    valueHint: "<ms>",
    description: "per request (default 10000, else OTEL_EXPORTER_OTLP_[TRACES_]TIMEOUT)",
  },
  "capture-content": {
    type: "boolean",
    default: false,
    description: "also send prompts, answers, tool arguments and results (after redaction; off by default, as the conventions say)",
  },
} as const;

/** Spans per request: a long session goes in several. */
const SPANS_PER_REQUEST = 1000;
/** The files a folder holds that can be sessions. */
const SESSION_FILE = /(?<!\.meta)\.(?:jsonl|ndjson|json)$/;

export const otlp = defineCommand({
  name: "otlp",
  summary: "export saved sessions as OpenTelemetry GenAI traces (OTLP/HTTP), each once (docs/otel.md)",
  usage: "otlp [options] <endpoint> <path ...>",
  description: `Reads the sessions in the files named (folders: every .jsonl, .ndjson and .json file under them),
maps each to spans (docs/otel.md) and sends them to the OTLP/HTTP endpoint (a base URL: /v1/traces is added),
each session once: what was sent is remembered in $XDG_STATE_HOME/agentstream/otlp-exported.json (a file
that changed since is sent again, with the same ids). The OTEL_EXPORTER_OTLP_* variables, OTEL_RESOURCE_ATTRIBUTES
and OTEL_SERVICE_NAME apply; flags override them. Secrets are redacted before anything is sent.`,
  options: {
    since: { type: "string", valueHint: "<when>", description: "only files changed since: 7d, 12h, 30m or a day (YYYY-MM-DD)" },
    ...exportOptions,
    ...readingOptions,
  },
  examples: [
    "agentstream otlp http://localhost:4318 ~/.claude/projects --since 7d",
    "agentstream otlp http://localhost:4318 session.jsonl",
  ],
  async run({ values, positionals, io }) {
    const [endpoint, ...paths] = positionals;
    if (endpoint === undefined || paths.length === 0)
      throw new AgentStreamError("usage", "name the endpoint and the sessions: agentstream otlp http://localhost:4318 <path ...>");
    const config = otlpExportConfig(
      { endpoint, protocol: values.protocol, headers: values.headers, timeout: values["export-timeout"] },
      io.env,
    );
    const since = values.since === undefined ? undefined : parseSince(values.since);
    const files = sessionFiles(paths, since);
    const state = new ExportedSessions(exportedStatePath(io.env));
    if (state.problem !== undefined) await io.stderr.write(`agentstream otlp: ${state.problem}\n`);
    const totals = { files: 0, skipped: 0, spans: 0, failed: 0, rejected: 0 };
    for (const file of files) {
      const now = statSync(file);
      if (state.has(config.url, file, now)) {
        totals.skipped++;
        continue;
      }
      const spans = await spansOf(file, values, io);
      const sent = await sendAll(config, spans, io.env, io);
      totals.rejected += sent.rejected;
      if (!sent.ok) {
        totals.failed++;
        continue;
      }
      state.add(config.url, file, now);
      totals.files++;
      totals.spans += spans.length;
    }
    if (!values.quiet || totals.failed > 0)
      await io.stderr.write(
        `agentstream otlp: ${totals.files} session file${totals.files === 1 ? "" : "s"} exported (${totals.spans} spans) to ${config.url}` +
          `, ${totals.skipped} already exported${totals.failed > 0 ? `, ${totals.failed} failed` : ""}` +
          `${totals.rejected > 0 ? `, ${totals.rejected} spans rejected by the receiver` : ""}\n`,
      );
    return totals.failed > 0 ? EXIT.issues : EXIT.ok;
  },
});

/** `7d`, `12h`, `30m`: that long before now; `YYYY-MM-DD`: that day's start, local time. In ms since the epoch. */
function parseSince(text: string): number {
  const relative = /^(\d+)(d|h|m)$/.exec(text.trim());
  if (relative !== null) {
    const unit = { d: 86_400_000, h: 3_600_000, m: 60_000 }[relative[2] as "d" | "h" | "m"];
    return Date.now() - Number(relative[1]) * unit;
  }
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim());
  if (day !== null) return new Date(Number(day[1]), Number(day[2]) - 1, Number(day[3])).getTime();
  throw new AgentStreamError("usage", `--since takes 7d, 12h, 30m or a day (YYYY-MM-DD), not "${text}"`);
}

/** The files under `paths`, sorted, each once, changed since `since` when given. */
function sessionFiles(paths: readonly string[], since: number | undefined): string[] {
  const found = new Set<string>();
  const visit = (path: string, named: boolean): void => {
    const stat = statSync(path);
    if (stat.isDirectory()) {
      for (const name of readdirSync(path).sort()) visit(join(path, name), false);
      return;
    }
    if (!stat.isFile() || (!named && !SESSION_FILE.test(path))) return;
    if (since !== undefined && stat.mtimeMs < since) return;
    found.add(realpathSync(path));
  };
  for (const path of paths) {
    try {
      visit(resolve(path), true);
    } catch (error) {
      throw new AgentStreamError("io", `cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return [...found];
}

/** The spans of every session in `file` (read as `convert` reads it: repaired and redacted by default). */
async function spansOf(file: string, values: Parameters<typeof readInputs>[0]["reading"] & { "capture-content": boolean }, io: CliIo) {
  const spans: FinishedSpan[] = [];
  const mapping = {
    captureContent: values["capture-content"],
    latestConventionsOnly: latestConventionsOnly(io.env),
    sessionFacts: summaryFacts,
  };
  const mapper = new SpanMapper(mapping, (span) => spans.push(span));
  const sink: Sink = {
    event: (event) => mapper.add(event),
    end: () => mapper.end(),
  };
  await readInputs({ sources: sourcesFromArguments([file], io), io, reading: values, sink });
  return spans;
}

/** Sends the spans in requests of at most SPANS_PER_REQUEST; false when one failed after its retries. */
async function sendAll(
  config: OtlpExportConfig,
  spans: readonly FinishedSpan[],
  env: CliIo["env"],
  io: CliIo,
): Promise<{ ok: boolean; rejected: number }> {
  const resource = resourceOf(resourceAttributesFromEnv(env));
  let rejected = 0;
  for (let at = 0; at < spans.length; at += SPANS_PER_REQUEST) {
    const body = serializeSpans(spans.slice(at, at + SPANS_PER_REQUEST), resource, config.protocol);
    const result = await sendTraces(config, body);
    if (!result.ok) {
      await io.stderr.write(`agentstream otlp: ${config.url}: ${result.reason}\n`);
      return { ok: false, rejected };
    }
    if (result.partial !== undefined) {
      rejected += result.partial.rejectedSpans;
      await io.stderr.write(
        `agentstream otlp: partial success: ${result.partial.rejectedSpans} spans rejected: ${result.partial.errorMessage}\n`,
      );
    }
  }
  return { ok: true, rejected };
}
