import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { AgentStreamError } from "../../errors.ts";
import { DEFAULT_CAPS } from "../../views/html/embed.ts";
import { exportPage } from "../../views/html/page.ts";
import { sanitizeForTerminal } from "../../views/shared/sanitize.ts";
import { readInputs, readingStatus } from "../input.ts";
import { defineCommand } from "../args.ts";
import { EXIT } from "../exit.ts";
import type { CliIo } from "../io.ts";
import { readingOptions } from "../reading-options.ts";
import { createHtmlSink, type FinishedSession } from "../sinks/html-sink.ts";
import { sourcesFromArguments } from "../sources/files.ts";
import { loadWebAssets } from "../../server/assets.ts";

export const html = defineCommand({
  name: "html",
  summary: "one self-contained HTML page per session: conversation, tool calls, diffs, tokens and cost",
  usage: "html [-o out.html | -o dir/] [options] [file ...]",
  description: `Writes each session as one HTML file that opens from disk with no network: the header (agent,
model, directory, start, duration, status, tokens, cost), the conversation (prompts, answers as safe
Markdown, reasoning and tool calls collapsed, diffs, plans, errors, subagents under their call) and
a timeline of tokens and cost. Long fields are cut to fit the caps (256 KiB a field, 8 MiB in all)
and the page says what was left out. Secrets are redacted unless --no-redact. docs/web.md.`,
  options: {
    output: {
      type: "string",
      short: "o",
      valueHint: "<path>",
      description: "a file (one session), or a directory (ends with / or exists): one file per session; default: stdout",
    },
    at: {
      type: "string",
      valueHint: "<event>",
      description: "open the page scrolled to this event (its number, as `agentstream search` prints it: #42)",
    },
    ...readingOptions,
  },
  examples: [
    "agentstream html session.jsonl -o session.html",
    "cat claude.jsonl codex.jsonl | agentstream html -o pages/",
    'claude -p "fix the tests" --output-format stream-json --verbose | agentstream html > run.html',
  ],
  async run({ values, positionals, io }) {
    const target = outputTarget(values.output, positionals.length, io);
    const at = eventNumber(values.at, positionals);
    const assets = loadWebAssets();
    const held: FinishedSession[] = [];
    const usedNames = new Set<string>();
    let writing: Promise<void> = Promise.resolve();
    const sink = createHtmlSink(DEFAULT_CAPS, (delivered) => {
      const finished =
        at === undefined ? delivered : { ...delivered, session: { ...delivered.session, header: { ...delivered.session.header, at } } };
      if (target.kind !== "directory") held.push(finished);
      else writing = writing.then(() => writeToDirectory(target.path, finished, usedNames, io, values.quiet, assets));
    });
    const runs = await readInputs({ sources: sourcesFromArguments(positionals, io), io, reading: values, sink });
    await writing;
    if (target.kind === "directory") return readingStatus(runs, values);
    if (held.length > 1) {
      const where = target.kind === "file" ? "-o takes a directory" : "write them to a directory";
      await io.stderr.write(`agentstream html: the input holds ${held.length} sessions: ${where} (-o pages/) to get one file each\n`);
      return EXIT.usage;
    }
    const only = held[0];
    if (only !== undefined) {
      const parts = await exportPage(only.session, assets, pageTitle(only));
      if (target.kind === "file") writeParts(target.path, parts, io, values.quiet);
      else for (const part of parts) await io.stdout.write(part);
    }
    return readingStatus(runs, values);
  },
});

/** `--at <event>` (`42` or `#42`, as search prints it), for one input: events are numbered per input. */
function eventNumber(at: string | undefined, inputs: readonly string[]): number | undefined {
  if (at === undefined) return undefined;
  const text = at.startsWith("#") ? at.slice(1) : at;
  if (!/^\d+$/.test(text)) throw new AgentStreamError("usage", `--at takes an event number (as search prints it: #42), not "${at}"`);
  if (inputs.length > 1) throw new AgentStreamError("usage", "--at takes one input (events are numbered per input)");
  return Number(text);
}

type Target = { kind: "stdout" } | { kind: "file"; path: string } | { kind: "directory"; path: string };

/** Where the pages go, decided before reading: usage errors come before any work. */
function outputTarget(output: string | undefined, inputs: number, io: CliIo): Target {
  if (output === undefined) {
    if (inputs > 1) throw new AgentStreamError("usage", "several inputs make several pages: name a directory with -o pages/");
    if (io.stdout.isTTY)
      throw new AgentStreamError("usage", "the page is HTML: write it to a file with -o session.html, or redirect stdout");
    return { kind: "stdout" };
  }
  if (output === "") throw new AgentStreamError("usage", "-o needs a file or directory name");
  if (output.endsWith("/") || isDirectory(output)) return { kind: "directory", path: output };
  if (inputs > 1) throw new AgentStreamError("usage", `several inputs make several pages: -o takes a directory (-o ${output}/)`);
  return { kind: "file", path: output };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

async function writeToDirectory(
  dir: string,
  finished: FinishedSession,
  used: Set<string>,
  io: CliIo,
  quiet: boolean,
  assets: ReturnType<typeof loadWebAssets>,
): Promise<void> {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (cause) {
    throw new AgentStreamError("io", `cannot create ${dir}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
  const parts = await exportPage(finished.session, assets, pageTitle(finished));
  writeParts(join(dir, fileName(finished, used)), parts, io, quiet);
}

function writeParts(path: string, parts: readonly string[], io: CliIo, quiet: boolean): void {
  try {
    writeFileSync(path, parts.join(""));
  } catch (cause) {
    throw new AgentStreamError("io", `cannot write ${path}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
  if (!quiet) void io.stderr.write(`agentstream html: wrote ${sanitizeForTerminal(path)}\n`);
}

/** `claude-code-1f2e3d4c.html`: the agent and the start of the session id, else the input's name and the session's number. */
function fileName(finished: FinishedSession, used: Set<string>): string {
  const safe = (text: string): string =>
    text
      .replace(/[^A-Za-z0-9._-]+/g, "-")
      .replace(/^[-.]+|-+$/g, "")
      .slice(0, 60);
  const agent = safe(finished.agent ?? "");
  const id = safe((finished.sessionId ?? "").slice(0, 8));
  const input = safe(basename(finished.input).replace(/\.[^.]*$/, "")) || "session";
  const stem = agent !== "" && id !== "" ? `${agent}-${id}` : `${agent || input}-${finished.index + 1}`;
  let name = `${stem}.html`;
  for (let n = 2; used.has(name); n++) name = `${stem}-${n}.html`;
  used.add(name);
  return name;
}

/** "claude-code: fix the failing tests…". */
function pageTitle(finished: FinishedSession): string {
  const prompt = (finished.firstPrompt ?? "").replace(/\s+/g, " ").trim();
  const what = prompt === "" ? (finished.sessionId ?? basename(finished.input)) : prompt.length > 70 ? `${prompt.slice(0, 69)}…` : prompt;
  return sanitizeForTerminal(`${finished.agent ?? "agent session"}: ${what}`, { keepNewlines: false });
}
