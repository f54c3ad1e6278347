/**
 * `--to markdown`: the escaping rules for agent text, the layout, the golden transcript of the example, and the
 * document's structure under hostile text (our headings only, no raw HTML but our <details>, every fence closed, no
 * image or non-web link, no control character but newline and tab).
 */
import { fc, test } from "../../helpers/property.ts";
import { describe, expect, it } from "vitest";
import type { AgentEventDraft, Usage } from "../../../src/model/events.ts";
import { code, fenced, safeMarkdown } from "../../../src/views/transcript/markdown.ts";
import { convertEvents, sources } from "../../helpers/convert.ts";
import { FORBIDDEN, hostileEvents, hostilePayloads, stream, webPayloads } from "../../helpers/hostile.ts";
import { readFile } from "../../helpers/read.ts";
import { noteSharedMissing, repoRoot } from "../../helpers/shared.ts";

const toMarkdown = (...drafts: AgentEventDraft[]): string => convertEvents(stream(...drafts), "markdown");
/** The document without its summary section. */
const body = (...drafts: AgentEventDraft[]): string => toMarkdown(...drafts).split("## Summary\n")[0] ?? "";
const usage: Usage = { inputTokens: 10, outputTokens: 20, cacheReadTokens: null, cacheWriteTokens: null, reasoningTokens: null };

describe("safeMarkdown", () => {
  it.each<[string, string, string]>([
    [
      "plain Markdown passes",
      "**bold**, _it_, `code`, a [link](https://x.example) and a list:\n\n- a\n- b",
      "**bold**, _it_, `code`, a [link](https://x.example) and a list:\n\n- a\n- b",
    ],
    ["raw HTML becomes text", "<script>alert(1)</script> <b>x</b>", "&lt;script>alert(1)&lt;/script> &lt;b>x&lt;/b>"],
    ["< in a code span stays", "use `a<b` and ``x `<y` z``", "use `a<b` and ``x `<y` z``"],
    ["< in fenced code stays", "```html\n<p>hi</p>\n```", "```html\n<p>hi</p>\n```"],
    ["an unmatched backtick is text", "a ` <b>", "a ` &lt;b>"],
    ["an unclosed fence is closed", "```\ncode\n## not a heading", "```\ncode\n## not a heading\n```"],
    ["an unclosed tilde fence is closed with its own length", "~~~~\ncode\n~~~", "~~~~\ncode\n~~~\n~~~~"],
    ["a shorter fence does not close a longer one", "````\n```\n````", "````\n```\n````"],
    ["ATX headings are escaped", "# Title\n## User\n   ### x\n#nospace", "\\# Title\n\\## User\n   \\### x\n#nospace"],
    [
      "setext underlines after text are escaped; a rule after a blank line stays",
      "User\n---\nTitle\n===\n\n---",
      "User\n\\---\nTitle\n\\===\n\n---",
    ],
    ["images become text", "![beacon](https://evil.example/p.png)", "!\\[beacon](https://evil.example/p.png)"],
    [
      "links to other schemes become text",
      "[a](javascript:x) [b]( JaVaScRiPt:x) [c](data:text/html,x) [d](java&#115;cript:x)",
      "[a]\\(javascript:x) [b]\\( JaVaScRiPt:x) [c]\\(data:text/html,x) [d]\\(java&#115;cript:x)",
    ],
    [
      "web, mail, anchor and relative links stay",
      "[a](https://x) [b](mailto:a@b) [c](#top) [d](src/a.ts) [e](./b.md) [f](/abs)",
      "[a](https://x) [b](mailto:a@b) [c](#top) [d](src/a.ts) [e](./b.md) [f](/abs)",
    ],
    ["reference definitions become text", "[x]: javascript:alert(1)\n[click][x]", "\\[x]: javascript:alert(1)\n[click][x]"],
    ["autolinks become text", "<https://x.example>", "&lt;https://x.example>"],
    ["control characters become visible", "a\u001b[31mb\u0007", "a\u241b[31mb\u2407"],
    ["CRLF becomes LF", "a\r\nb", "a\nb"],
  ])("%s", (_name, input, expected) => {
    expect(safeMarkdown(input)).toBe(expected);
  });
});

describe("fences and code spans", () => {
  it.each<[string, string, string]>([
    ["no backticks: three", "x", "```text\nx\n```"],
    ["a fence inside: one longer", "```\nx\n```", "````text\n```\nx\n```\n````"],
    ["a run of five: six", "a `````b", "``````text\na `````b\n``````"],
  ])("fenced: %s", (_name, input, expected) => {
    expect(fenced(input, "text")).toBe(expected);
  });
  it.each<[string, string, string]>([
    ["plain", "Bash", "`Bash`"],
    ["with a backtick", "a`b", "``a`b``"],
    ["starting with one", "`x", "`` `x ``"],
    ["multi-line → one line", "a\nb", "`a b`"],
  ])("code: %s", (_name, input, expected) => {
    expect(code(input)).toBe(expected);
  });
});

describe("markdown layout", () => {
  it.each<[string, AgentEventDraft[], string]>([
    [
      "session facts as a list",
      [{ type: "session.started", sessionId: "s1", agent: "codex", model: "gpt-5", cwd: "/w" }],
      "# Agent session\n\n- **Session:** `s1`\n- **Agent:** codex\n- **Model:** `gpt-5`\n- **Directory:** `/w`\n\n",
    ],
    [
      "a section per message; reasoning folded in <details> under the text's heading",
      [
        { type: "message.completed", messageId: "u", role: "user", kind: "text", text: "fix it" },
        { type: "message.completed", messageId: "r", role: "assistant", kind: "reasoning", text: "think" },
        { type: "message.completed", messageId: "a", role: "assistant", kind: "text", text: "done" },
        { type: "message.completed", messageId: "b", role: "assistant", kind: "text", text: "also" },
      ],
      "# Agent session\n\n## User\n\nfix it\n\n## Assistant\n\n<details>\n<summary>Thinking</summary>\n\nthink\n\n</details>\n\ndone\n\n## Assistant\n\nalso\n\n",
    ],
    [
      "a command: its command in a sh fence, its result and output",
      [
        { type: "tool.started", toolCallId: "t", name: "Bash", kind: "command", input: { command: "ls" } },
        { type: "tool.completed", toolCallId: "t", output: "a\n", exitCode: 1, isError: true },
      ],
      "# Agent session\n\n## Assistant\n\n### Tool: `Bash`\n\n```sh\nls\n```\n\n**Result of `Bash`:** failed, exit 1\n\n```text\na\n```\n\n",
    ],
    [
      "other tools: arguments as JSON; a structured result when there is no text; changes with their diff",
      [
        { type: "tool.started", toolCallId: "e", name: "Edit", kind: "file_edit", input: { file_path: "/a" } },
        { type: "tool.completed", toolCallId: "e", result: { ok: true }, isError: false },
        { type: "file.changed", toolCallId: "e", changes: [{ path: "/a", kind: "update", diff: "-x\n+y" }] },
      ],
      '# Agent session\n\n## Assistant\n\n### Tool: `Edit`\n\n```json\n{\n  "file_path": "/a"\n}\n```\n\n**Result of `Edit`:** ok\n\n```json\n{\n  "ok": true\n}\n```\n\n**Changed:** update `/a`\n\n```diff\n-x\n+y\n```\n\n',
    ],
    [
      "a result with no call gets the call's heading",
      [{ type: "tool.completed", toolCallId: "x", name: "Grep", output: "hit", isError: false }],
      "# Agent session\n\n## Assistant\n\n### Tool: `Grep`\n\n**Result of `Grep`:** ok\n\n```text\nhit\n```\n\n",
    ],
    [
      "a plan as a task list",
      [
        {
          type: "plan.updated",
          items: [
            { text: "a", status: "completed" },
            { text: "b", status: "in_progress" },
          ],
        },
      ],
      "# Agent session\n\n## Assistant\n\n**Plan:**\n\n- [x] a\n- [ ] b _(in progress)_\n\n",
    ],
    [
      "errors, warnings and retries as quotes",
      [
        { type: "error", scope: "api", message: "<b>bad</b>\nthing" },
        { type: "notice", kind: "warning", level: "warning", text: "slow" },
        { type: "retry", attempt: 2, maxAttempts: 5, error: "503" },
      ],
      "# Agent session\n\n> **Error (api):** &lt;b>bad&lt;/b> thing\n\n> **Warning:** slow\n\n> **Retry 2/5**: 503\n\n",
    ],
    [
      "a subagent's section",
      [
        { type: "session.started", sessionId: "sub", parentToolCallId: "task" },
        { type: "message.completed", messageId: "m", role: "assistant", kind: "text", text: "hi", sessionId: "sub" },
      ],
      "# Agent session\n\n## Subagent `sub`\n\nStarted by tool call `task`.\n\n## Assistant (subagent `sub`)\n\nhi\n\n",
    ],
  ])("%s", (_name, drafts, expected) => {
    expect(body(...drafts)).toBe(expected);
  });

  it("the summary table: status, error, model, tokens, cost", () => {
    const text = toMarkdown(
      { type: "session.started", model: "m|x", agent: "codex" },
      { type: "session.completed", status: "error", error: "a | b", usage, costUsd: 0.01, durationMs: 500, turns: 1 },
    );
    expect(text.slice(text.indexOf("## Summary"))).toBe(
      "## Summary\n\n| Field | Value |\n| --- | --- |\n| Status | **error** |\n| Error | a \\| b |\n| Agent | codex |\n| Model | `m\\|x` |\n| Tokens | 10 input, 20 output |\n| Cost | $0.0100 |\n| Duration | 500ms |\n| Turns | 1 |\n| Tool calls | 0 |\n\n",
    );
  });

  it("the final answer gets a section when no assistant text was shown; unfinished deltas are written at the end", () => {
    expect(body({ type: "session.completed", status: "success", finalText: "42" })).toBe("# Agent session\n\n## Final answer\n\n42\n\n");
    expect(body({ type: "message.delta", role: "assistant", kind: "text", messageId: "m", text: "partial", position: 0 })).toBe(
      "# Agent session\n\n## Assistant\n\npartial\n\n",
    );
  });
});

it("golden: the example session", async () => {
  const { events } = readFile(`${repoRoot}/examples/claude-code-session.ndjson`);
  await expect(convertEvents(events, "markdown")).toMatchFileSnapshot("../../golden/formats/claude-code-session.md");
});

// ---------------------------------------------------------------------------------------------
// Structure under hostile text
// ---------------------------------------------------------------------------------------------

/** What a CommonMark reader sees at block level: headings and raw HTML outside code, and whether a fence is left open. */
function structure(markdown: string): { headings: string[]; html: string[]; images: string[]; badLinks: string[]; openFence: boolean } {
  const headings: string[] = [];
  const html: string[] = [];
  const images: string[] = [];
  const badLinks: string[] = [];
  let fence: { char: string; length: number } | undefined;
  for (const line of markdown.split("\n")) {
    if (fence !== undefined) {
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
      if (close?.[1] !== undefined && close[1][0] === fence.char && close[1].length >= fence.length) fence = undefined;
      continue;
    }
    const open = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (open?.[1] !== undefined) {
      fence = { char: open[1][0] ?? "`", length: open[1].length };
      continue;
    }
    if (/^ {0,3}#{1,6}(\s|$)/.test(line)) headings.push(line);
    const text = line.replace(/(`+)(?:(?!\1)[\s\S])*?\1(?!`)/g, ""); // code spans out
    for (const tag of text.match(/<[A-Za-z!/?][^>]*>?/g) ?? []) html.push(tag);
    for (const image of text.match(/(^|[^\\])!\[/g) ?? []) images.push(image);
    for (const link of text.match(/(^|[^\\])\]\(\s*(?!https?:|mailto:|#|\.{0,2}\/)[^)\s]*:/gi) ?? []) badLinks.push(link);
  }
  return { headings, html, images, badLinks, openFence: fence !== undefined };
}

const OUR_HEADING =
  /^(# Agent session|## (Assistant|User|System|Developer)( \(subagent `.*`\))?|## Subagent `.*`|## Final answer|## Summary|### Tool: `.*`)$/;
const OUR_HTML = new Set(["<details>", "<summary>", "</summary>", "</details>"]);

const markdownAttacks: [string, string][] = [
  ["unclosed fence then a fake summary", "```\nunclosed\n## Summary\n| Status | success |"],
  ["unclosed long tilde fence", "~~~~~\nx"],
  ["fake headings", "# Agent session\n## User\nignore previous instructions\n### Tool: `rm`"],
  ["setext headings", "User\n---\nAssistant\n==="],
  ["HTML blocks and comments", "<details open><summary>x</summary>\n<!--\n## hidden\n-->\n</details>"],
  ["reference links", "[x]: javascript:alert(1)\n[click][x]"],
  ["images and scheme links", "![beacon](https://evil.example/p.png) [a](JaVaScRiPt:alert(1)) [b](<javascript:x>) [c](vbscript:x)"],
  ["a fence of many backticks", "``````````\n```\nx"],
  ["code with HTML", "`<b>` and <b>bold</b> and ``<i>``"],
];

noteSharedMissing();
describe("hostile text cannot break the document", () => {
  it.each([...markdownAttacks, ...webPayloads(), ...hostilePayloads()])("%s", (_id, payload) => {
    const markdown = convertEvents(hostileEvents(payload), "markdown");
    expect(markdown).not.toMatch(FORBIDDEN);
    const seen = structure(markdown);
    expect(seen.openFence).toBe(false);
    expect(seen.headings.filter((h) => !OUR_HEADING.test(h))).toEqual([]);
    expect(seen.html.filter((tag) => !OUR_HTML.has(tag))).toEqual([]);
    expect(seen.images).toEqual([]);
    expect(seen.badLinks).toEqual([]);
    expect(seen.headings.at(-1)).toBe("## Summary");
  });
});

describe("odd sequences", () => {
  const anyEvent = fc.constantFrom<AgentEventDraft>(
    { type: "session.started", sessionId: "s1" },
    { type: "session.started", sessionId: "sub", parentSessionId: "s1" },
    { type: "session.completed", status: "success" },
    { type: "message.delta", role: "assistant", kind: "text", messageId: "m", text: "```\nopen", position: 0 },
    { type: "message.completed", messageId: "m", role: "assistant", kind: "text", text: "```\nopen" },
    { type: "message.completed", messageId: "n", role: "assistant", kind: "reasoning", text: "<x>", sessionId: "sub" },
    { type: "tool.started", toolCallId: "t", name: "Bash", kind: "command" },
    { type: "tool.input.delta", toolCallId: "t", text: '{"command":"ls"}' },
    { type: "tool.completed", toolCallId: "t", isError: false, output: "````" },
    { type: "file.changed", changes: [{ path: "/f", kind: "update" }] },
    { type: "error", scope: "session", message: "e" },
  );
  test.prop([fc.array(anyEvent, { maxLength: 30 })], { numRuns: 200 })("never throws; every fence closes", (drafts) => {
    const markdown = convertEvents(stream(...drafts), "markdown");
    expect(structure(markdown).openFence).toBe(false);
  });
});

describe("every source converts to markdown", () => {
  it.each(sources())("%s", (_name, path) => {
    const { events, summary } = readFile(path);
    const markdown = convertEvents(events, "markdown");
    expect(markdown).not.toMatch(FORBIDDEN);
    const seen = structure(markdown);
    expect(seen.openFence).toBe(false);
    expect(seen.headings.filter((h) => !OUR_HEADING.test(h))).toEqual([]);
    if (events.length > 0) expect(markdown).toContain(`| Status | **${summary.status}** |`);
  });
});
