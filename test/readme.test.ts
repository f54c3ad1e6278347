/**
 * The README's library examples, taken from README.md itself so the two cannot drift: they
 * type-check against src/ with the project's compiler options, and, run on a real capture of every
 * dialect, print the final answer exactly once and none of the reasoning or the user's prompts.
 */
import { createReadStream, readFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import * as agentstream from "../src/index.ts";
import type { AgentEvent } from "../src/index.ts";
import { hasShared, noteSharedMissing, repoRoot, sharedPath } from "./helpers/shared.ts";

/** One capture per dialect folder, chosen for what can go wrong: reasoning, token deltas, prompts streamed as text. */
const CAPTURES: readonly string[] = [
  "aider/aider-website_hello-world-flask.md.txt", // user prompts arrive as text deltas
  "amp/unison_amp_0.0.1775837683_stream_json_2plus2.jsonl",
  "claude/ralph_partial_bash_success_2.1.218.jsonl", // token deltas, thinking deltas
  "claude/archistrator_success_with_tools.jsonl", // plain stream-json: no deltas at all
  "claude-session/switchboard_2.1.206_tool_vocabulary_session_sanitized.jsonl",
  "cline/oneshot_sample-cline-activity_cli-1.0.9.jsonl", // reasoning messages
  "codex/tauceti_0.160_mcp_tool_call_structured_content.jsonl", // reasoning items, no deltas
  "codex-session/pagehub_0.154.0_exec_resume_rollout_filtered.jsonl",
  "cursor/cursorhack_2026.01.28_direct_sleep_thinking_deltas.jsonl", // reasoning deltas only
  "gemini/switchboard_0.42.0_tool_use_update_topic_sanitized_ids.jsonl",
  "gemini-session/switchboard_0.42.0_tool_use_session_with_set_records.jsonl",
  "harmony/test_keep_analysis_between_finals.txt", // analysis channel, user text as deltas
  "opencode/takopi_opencode_stream_success.jsonl",
  "qwen/plannotator_0.25.0_partial_cherrypicked_lines.jsonl", // reasoning deltas
];

interface CodeBlock {
  readonly line: number;
  readonly code: string;
}

/** The ```ts blocks of README.md that use the library. */
function readmeExamples(): CodeBlock[] {
  const lines = readFileSync(join(repoRoot, "README.md"), "utf8").split("\n");
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]?.trim() !== "```ts") continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end]?.trim() !== "```") end++;
    const code = lines.slice(start, end).join("\n");
    if (code.includes('from "agentstream"')) blocks.push({ line: start + 1, code });
    i = end;
  }
  return blocks;
}

/**
 * Type errors of each example, by line, compiled as modules with the project's options and
 * `agentstream` mapped to src/. One program for all of them, and only their own files are checked.
 */
function typeErrors(blocks: readonly CodeBlock[]): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(repoRoot, "tsconfig.json"),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  const sources = new Map(blocks.map((block) => [join(repoRoot, `readme-example-${block.line}.ts`), block]));
  const options: ts.CompilerOptions = {
    ...config?.options,
    noEmit: true,
    rootDir: repoRoot,
    paths: { agentstream: ["./src/index.ts"] },
    baseUrl: repoRoot,
  };
  const host = ts.createCompilerHost(options);
  const textOf = (name: string): string | undefined => {
    const block = sources.get(name);
    return block === undefined ? undefined : `${block.code}\nexport {};\n`;
  };
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => textOf(name) ?? readFile(name);
  host.fileExists = (name) => sources.has(name) || fileExists(name);
  host.getSourceFile = (name, language) => {
    const text = textOf(name);
    return text === undefined ? getSourceFile(name, language) : ts.createSourceFile(name, text, language);
  };
  const program = ts.createProgram([...sources.keys()], options, host);
  const errors: string[] = [];
  for (const [fileName, block] of sources) {
    const file = program.getSourceFile(fileName);
    const diagnostics = [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)];
    for (const d of diagnostics) {
      const line = block.line + (d.file?.getLineAndCharacterOfPosition(d.start ?? 0).line ?? 0);
      errors.push(`README.md:${line}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`);
    }
  }
  return errors;
}

const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
  ...args: string[]
) => (...values: unknown[]) => Promise<void>;

/** Runs an example with stdin (or fetch's body) reading `open()`; returns what it printed on stdout. */
async function runExample(block: CodeBlock, open: () => Readable): Promise<string> {
  const js = ts.transpileModule(block.code, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2023 },
  }).outputText;
  // The only import is the library itself; it becomes a parameter so the example runs on src/.
  const body = js.replace(/^import \{([^}]*)\} from "agentstream";$/m, "const {$1} = __agentstream;");
  expect(body).not.toMatch(/^import /m);
  let out = "";
  const fakeProcess = { stdin: open(), stdout: { write: (text: string) => (out += text) } };
  const fakeConsole = { log: (...values: unknown[]) => (out += `${values.join(" ")}\n`), warn: () => {} };
  const fakeFetch = async () => new Response(Readable.toWeb(open()) as ReadableStream<Uint8Array>);
  await new AsyncFunction("__agentstream", "process", "console", "fetch", body)(agentstream, fakeProcess, fakeConsole, fakeFetch);
  return out;
}

async function eventsOf(path: string): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of agentstream.readEvents(createReadStream(path), { dialect: "auto" })) events.push(event);
  return events;
}

function occurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) count++;
  return count;
}

describe("README library examples", () => {
  const examples = readmeExamples();

  it("README.md has the two library examples", () => {
    expect(examples).toHaveLength(2);
  });

  it("they type-check against src/ with the project's compiler options", () => {
    expect(typeErrors(examples)).toEqual([]);
  });
});

noteSharedMissing();
describe.skipIf(!hasShared)("README library examples on a real capture of every dialect", () => {
  const examples = readmeExamples();
  const cases = CAPTURES.flatMap((capture) =>
    examples.map((block) => [`README.md:${block.line} on ${capture}`, block, sharedPath("fixtures", capture)] as const),
  );

  it.each(cases)("%s: the final answer once, no reasoning, no prompts", async (_name, block, path) => {
    const events = await eventsOf(path);
    const messages = events.filter((e) => e.type === "message.completed");
    const answers = messages.filter((m) => m.role === "assistant" && m.kind === "text" && m.text.trim() !== "");
    const finalAnswer = answers.at(-1)?.text.trim();
    expect(finalAnswer, "the capture has an answer").toBeTruthy();
    const printed = await runExample(block, () => createReadStream(path));
    // Once per time the agent said it (a few sessions repeat their last words verbatim).
    const said = answers.filter((m) => m.text.includes(finalAnswer as string)).length;
    expect(occurrences(printed, finalAnswer as string)).toBe(said);
    // Reasoning and prompts must not be printed, unless the answer itself quotes them.
    const answerText = answers.map((m) => m.text).join("\n");
    const hidden = messages.filter((m) => !(m.role === "assistant" && m.kind === "text")).map((m) => m.text.trim());
    for (const text of hidden.filter((t) => t.length >= 8 && !answerText.includes(t))) expect(printed).not.toContain(text);
  });

  it("the captures include reasoning, reasoning deltas and non-assistant deltas, so the checks above can fail", async () => {
    const all = (await Promise.all(CAPTURES.map((c) => eventsOf(sharedPath("fixtures", c))))).flat();
    expect(all.some((e) => e.type === "message.completed" && e.kind === "reasoning" && e.text.trim().length >= 8)).toBe(true);
    expect(all.some((e) => e.type === "message.delta" && e.kind === "reasoning")).toBe(true);
    expect(all.some((e) => e.type === "message.delta" && e.role !== "assistant")).toBe(true);
  });

  it("every delta carries the role and kind of its message.started", async () => {
    for (const capture of CAPTURES) {
      const started = new Map<string, string>();
      for (const event of await eventsOf(sharedPath("fixtures", capture))) {
        if (event.type === "message.started") started.set(event.messageId, `${event.role} ${event.kind}`);
        if (event.type === "message.delta")
          expect(`${event.role} ${event.kind}`, `${capture}: ${event.messageId}`).toBe(started.get(event.messageId));
      }
    }
  });
});

describe("README example's cost line", () => {
  it("prints the cost rounded to 4 decimals", async () => {
    const block = readmeExamples()[0] as CodeBlock;
    const session = [
      '{"v":1,"seq":0,"type":"session.started","sessionId":"s"}',
      '{"v":1,"seq":1,"type":"session.completed","sessionId":"s","status":"success","costUsd":0.054201000000000006}',
    ].join("\n");
    const printed = await runExample(block, () => Readable.from([session]));
    expect(printed).toBe("success, $0.0542\n");
  });
});
