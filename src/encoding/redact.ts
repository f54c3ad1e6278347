/**
 * Secret redaction for formats whose rules forbid secrets in what they log (codex-thread `args`,
 * the dev-agent design: "omit secrets; redact GitHub token"; AAEP `args_summary`: "MUST NOT include
 * sensitive secrets"). Two rules, documented in docs/formats/codex-thread.md:
 * 1. by key name: a value under a key that names a credential (`password`, `api_key`, `apiKey`,
 *    `github_token`, `Authorization`, ...) is replaced whole; `max_tokens` and `tokenizer` are not;
 * 2. by value pattern: well-known token shapes (GitHub, OpenAI/Anthropic `sk-`, AWS, Slack, Google,
 *    Bearer, PEM private keys, URL passwords, `NAME_TOKEN=...` and `--password ...`) are replaced
 *    inside any string, so a secret inside a shell command is caught too.
 * It is a safety net for logs, not a guarantee: an unusual secret in an unusual place passes.
 * It applies whatever `--no-redact` says, because these formats' own rules forbid secrets; the
 * pipeline's redaction of every event (src/redact/, docs/redaction.md) runs before it, by default.
 */
import type { JsonValue } from "../model/events.ts";
// One list of credential key names for the whole library.
import { isSecretKey } from "../stages/redact/redact-text.ts";
import { LosslessInteger } from "../model/lossless-integer.ts";

/** What a redacted value is replaced with. */
export const REDACTED = "[REDACTED]";

const VALUE_PATTERNS: readonly [RegExp, string][] = [
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g, REDACTED],
  [/\bgithub_pat_[A-Za-z0-9_]{20,}/g, REDACTED],
  [/\bgh[pousr]_[A-Za-z0-9]{20,}/g, REDACTED],
  [/\bsk-[A-Za-z0-9_-]{16,}/g, REDACTED],
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, REDACTED],
  [/\bxox[abprs]-[A-Za-z0-9-]{10,}/g, REDACTED],
  [/\bAIza[0-9A-Za-z_-]{35}/g, REDACTED],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{12,}/gi, `$1 ${REDACTED}`],
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)[^\s@/]+@/gi, `$1${REDACTED}@`],
  [/\b([A-Za-z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY))=("[^"]*"|'[^']*'|\S+)/gi, `$1=${REDACTED}`],
  [/(--?(?:password|passwd|token|api-key|apikey|secret|auth-token)(?:=|\s+))("[^"]*"|'[^']*'|\S+)/gi, `$1${REDACTED}`],
];

/** A string with every well-known secret shape replaced. */
export function redactText(text: string): string {
  let out = text;
  for (const [pattern, replacement] of VALUE_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/** A copy of `value` with secrets replaced by key name and by value pattern. */
export function redactSecrets(value: JsonValue): JsonValue {
  if (typeof value === "string") return redactText(value);
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (value === null || typeof value !== "object" || LosslessInteger.is(value)) return value;
  const out: { [key: string]: JsonValue } = {};
  for (const [key, inner] of Object.entries(value)) {
    // A null or empty value is not a secret, and keeping it shows the field was there.
    const redacted = isSecretKey(key) && inner !== null && inner !== "" ? REDACTED : redactSecrets(inner);
    // defineProperty, so a key named `__proto__` stays data.
    Object.defineProperty(out, key, { value: redacted, enumerable: true, writable: true, configurable: true });
  }
  return out;
}
