/** Synthetic Claude Code transcripts for the search tests, written under a fresh temporary folder. */
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { tempDir } from "../helpers/temp.ts";

interface Base {
  readonly session: string;
  readonly time: string;
  readonly cwd?: string;
}

const base = (b: Base, uuid: string) => ({
  parentUuid: null,
  isSidechain: false,
  userType: "external",
  cwd: b.cwd ?? "/work/demo",
  sessionId: b.session,
  version: "2.1.0",
  uuid,
  timestamp: b.time,
});

export function prompt(b: Base, text: string): object {
  return { ...base(b, `u-${b.time}`), type: "user", message: { role: "user", content: text } };
}

export function answer(b: Base, text: string, kind: "text" | "thinking" = "text"): object {
  const block = kind === "text" ? { type: "text", text } : { type: "thinking", thinking: text, signature: "sig" };
  return {
    ...base(b, `a-${b.time}`),
    type: "assistant",
    requestId: `req-${b.time}`,
    message: {
      id: `msg-${b.time}-${kind}`,
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-20250514",
      content: [block],
      stop_reason: null,
      usage: { input_tokens: 10, output_tokens: 5 },
    },
  };
}

export function toolUse(b: Base, id: string, name: string, input: object): object {
  return {
    ...base(b, `t-${b.time}`),
    type: "assistant",
    requestId: `req-${b.time}`,
    message: {
      id: `msg-${b.time}-tool`,
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-20250514",
      content: [{ type: "tool_use", id, name, input }],
      stop_reason: "tool_use",
      usage: { input_tokens: 10, output_tokens: 5 },
    },
  };
}

export function toolResult(b: Base, id: string, output: string): object {
  return {
    ...base(b, `r-${b.time}`),
    type: "user",
    message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: output }] },
  };
}

/** A folder of logs: `write` puts lines in a file (as Claude names its logs, `<project>/<session>.jsonl`), `append` adds some. */
export function sessionTree(): {
  root: string;
  write(path: string, lines: readonly object[]): string;
  append(path: string, lines: readonly object[]): void;
} {
  const root = tempDir("search");
  const text = (lines: readonly object[]) => lines.map((l) => `${JSON.stringify(l)}\n`).join("");
  return {
    root,
    write(path, lines) {
      const file = join(root, path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text(lines));
      return file;
    },
    append(path, lines) {
      appendFileSync(join(root, path), text(lines));
    },
  };
}

/** Two sessions: one that fixes a due date (an Edit of src/auth.ts), one that runs a migration. */
export function twoSessions(): ReturnType<typeof sessionTree> {
  const tree = sessionTree();
  const a = { session: "aaaa-1111", time: "2026-11-20T10:00:00.000Z", cwd: "/work/shop" };
  const at = (t: string) => ({ ...a, time: t });
  tree.write("projects/-work-shop/aaaa-1111.jsonl", [
    prompt(a, "Fix the due date shown in the invoice list"),
    answer(at("2026-11-20T10:00:05.000Z"), "The bug is in this.formatDue(x): it drops the time zone.", "thinking"),
    toolUse(at("2026-11-20T10:00:06.000Z"), "toolu_1", "Edit", {
      file_path: "/work/shop/src/auth.ts",
      old_string: "return this.formatDue(x);",
      new_string: "return this.formatDue(x, zone);",
    }),
    toolResult(at("2026-11-20T10:00:07.000Z"), "toolu_1", "The file /work/shop/src/auth.ts has been updated."),
    answer(at("2026-11-20T10:00:08.000Z"), "Fixed: formatDue now keeps the Time Zone."),
  ]);
  const b = { session: "bbbb-2222", time: "2026-11-25T09:00:00.000Z", cwd: "/work/api" };
  const bt = (t: string) => ({ ...b, time: t });
  tree.write("projects/-work-api/bbbb-2222.jsonl", [
    prompt(b, "Run the database migration"),
    toolUse(bt("2026-11-25T09:00:02.000Z"), "toolu_2", "Bash", { command: "npm run migrate -- --env staging" }),
    toolResult(bt("2026-11-25T09:00:03.000Z"), "toolu_2", "migrated 3 tables\nOK"),
    answer(bt("2026-11-25T09:00:04.000Z"), "The migration ran: 3 tables migrated."),
  ]);
  return tree;
}
