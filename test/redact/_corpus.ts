/** The fake-secret corpus of ../shared/corpus/secrets/fake-tokens.json, tokens joined from their parts. */
import { readFileSync } from "node:fs";
import { hasShared, sharedPath } from "../helpers/shared.ts";

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
