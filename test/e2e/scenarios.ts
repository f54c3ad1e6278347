/**
 * The scenarios the real CLIs are driven through, each a model script plus what a reader of the
 * CLI's output must then see. Shared by test/e2e/real-clis.test.ts and, later, the `run` harness.
 */
import type { Script } from "../helpers/model-server/index.ts";

export interface Scenario {
  readonly name: string;
  readonly script: Script;
  /** The final answer: the script's last text. Absent when the run must fail. */
  readonly finalText?: string;
  /** Shell commands the model asks for, in order, with a piece of output each must show. */
  readonly tools?: readonly { readonly command: string; readonly output: string }[];
  /** Thinking/reasoning text that must come out as a reasoning message, apart from the answer. */
  readonly reasoning?: string;
  /** The run must end in error; `message`, when given, must appear in the error both CLIs report. */
  readonly error?: { readonly message?: string };
  /**
   * The scripted server streams the answer in chunks of over 200 characters, three or more: the seed's large-delta
   * warning (`large-deltas`, ralph's snapshot-as-delta check) is then expected, once, from an agent that streams deltas.
   */
  readonly largeDeltas?: true;
}

/** 3 000 distinct numbered lines (about 100 KB): a long answer whose deltas never repeat. */
const LARGE_TEXT = Array.from({ length: 3000 }, (_, i) => `line ${i + 1} of a long scripted answer`).join("\n");

export const scenarios: readonly Scenario[] = [
  {
    name: "text",
    script: [{ blocks: [{ type: "text", text: "Hello from the scripted model: ünïcödé, emoji 🙂." }] }],
    finalText: "Hello from the scripted model: ünïcödé, emoji 🙂.",
  },
  {
    name: "tool call and its result",
    script: [
      {
        blocks: [
          { type: "text", text: "Let me look." },
          { type: "tool", command: "echo scripted-output" },
        ],
      },
      { blocks: [{ type: "text", text: "The command printed scripted-output." }], usage: { input: 250, output: 40, cacheRead: 200 } },
    ],
    finalText: "The command printed scripted-output.",
    tools: [{ command: "echo scripted-output", output: "scripted-output" }],
  },
  {
    name: "thinking or reasoning",
    script: [
      {
        blocks: [
          { type: "thinking", text: "The user wants a short greeting." },
          { type: "text", text: "Hi there." },
        ],
      },
    ],
    finalText: "Hi there.",
    reasoning: "The user wants a short greeting.",
  },
  {
    name: "API error (HTTP 400)",
    script: [{ error: { via: "http", status: 400, message: "scripted bad request" } }],
    error: { message: "scripted bad request" },
  },
  {
    name: "API error (in the stream)",
    script: [{ error: { via: "stream", message: "scripted overload" } }],
    error: {},
  },
  {
    name: "slow tool",
    script: [
      { blocks: [{ type: "tool", command: "sleep 2; echo slow-done" }] },
      // A slow model as well: Anthropic `ping`s keep the stream alive while it "thinks".
      { delayMs: 1000, blocks: [{ type: "text", text: "Slow done." }] },
    ],
    finalText: "Slow done.",
    tools: [{ command: "sleep 2; echo slow-done", output: "slow-done" }],
  },
  {
    name: "large tool output and a large answer",
    script: [{ blocks: [{ type: "tool", command: "seq 1 30000" }] }, { blocks: [{ type: "text", text: LARGE_TEXT, chunks: 25 }] }],
    finalText: LARGE_TEXT,
    largeDeltas: true,
    // Claude Code keeps a preview and saves the rest to a file; Codex returns it whole. Both start so.
    tools: [{ command: "seq 1 30000", output: "1\n2\n3\n4\n5\n" }],
  },
];
