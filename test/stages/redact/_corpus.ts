/** The fake-secret corpus of ../shared/corpus/secrets/fake-tokens.json, tokens joined from their parts. */
import { readFileSync } from "node:fs";
import { hasShared, sharedPath } from "../../helpers/shared.ts";

interface RawCorpus {
  positives: { rule: string; about: string; parts: string[]; context: string }[];
  negatives: { about: string; text: string }[];
  streaming: { about: string; rule: string; parts: string[]; before: string; after: string }[];
}

/** A positive: `text` holds `token` once; redaction must remove it. */
export interface SecretCase {
  readonly rule: string;
  readonly about: string;
  readonly token: string;
  readonly text: string;
}

function load(): RawCorpus {
  if (!hasShared) return { positives: [], negatives: [], streaming: [] };
  return JSON.parse(readFileSync(sharedPath("corpus/secrets/fake-tokens.json"), "utf8")) as RawCorpus;
}

const corpus = load();

export const positives: SecretCase[] = corpus.positives.map((p) => {
  const token = p.parts.join("");
  return { rule: p.rule, about: p.about, token, text: p.context.replace("{TOKEN}", token) };
});
export const negatives = corpus.negatives;
export const streamingCases = corpus.streaming.map((s) => ({ ...s, token: s.parts.join(""), text: s.before + s.parts.join("") + s.after }));

/** Cuts `text` into three pieces, the cuts falling inside the secret. */
function cutThrough(text: string, secret: string): [string, string, string] {
  const at = text.indexOf(secret);
  const a = at + Math.max(1, Math.floor(secret.length / 3));
  const b = at + Math.max(2, Math.floor((secret.length * 2) / 3));
  return [text.slice(0, a), text.slice(a, b), text.slice(b)];
}

/** An agentstream stream with the secret in every field kind that carries text; the secret in streamed fields is split across pieces. */
export function streamWith(p: SecretCase): string {
  const text = `here it is: ${p.text} -- done`;
  const json = JSON.stringify({ command: text });
  const records: object[] = [{ type: "session.started", agent: "test", details: { note: text } }];
  const add = (record: object): void => void records.push(record);
  for (const [id, kind] of [
    ["m1", "text"],
    ["m2", "reasoning"],
  ] as const) {
    add({ type: "message.started", messageId: id, role: "assistant", kind });
    let position = 0;
    for (const piece of cutThrough(text, p.token)) {
      add({ type: "message.delta", messageId: id, text: piece, position });
      position += piece.length;
    }
    add({ type: "message.completed", messageId: id, role: "assistant", kind, text });
  }
  add({ type: "tool.started", toolCallId: "t1", name: "Bash", kind: "command", description: text });
  for (const piece of cutThrough(json, JSON.stringify(p.token).slice(1, -1)))
    add({ type: "tool.input.delta", toolCallId: "t1", text: piece });
  for (const piece of cutThrough(text, p.token)) add({ type: "tool.progress", toolCallId: "t1", output: piece });
  add({ type: "tool.completed", toolCallId: "t1", name: "Bash", output: text, result: { stdout: text }, isError: false });
  add({ type: "tool.started", toolCallId: "t2", name: "Bash", input: { command: text } });
  add({ type: "tool.completed", toolCallId: "t2", output: text, isError: true });
  add({ type: "file.changed", changes: [{ path: "a.env", kind: "update", diff: `+${text}` }] });
  add({ type: "error", scope: "tool", message: text });
  add({ type: "notice", kind: "hook", level: "info", text, details: { stderr: text } });
  add({ type: "session.completed", status: "error", error: text, finalText: text });
  const lines = records.map((r, seq) => JSON.stringify({ v: 1, seq, ...r }));
  // A plain text line, an unknown record and a broken JSON line that quotes the secret.
  lines.push(text, JSON.stringify({ v: 1, seq: 99, type: "nonsense", data: text }), `{"broken": ${JSON.stringify(text)}`);
  return `${lines.join("\n")}\n`;
}
