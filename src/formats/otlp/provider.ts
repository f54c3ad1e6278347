/**
 * `gen_ai.provider.name` from what the stream says: the model id first (an agent such as OpenCode or Cursor talks to
 * several providers), then the agent's own provider. Unknown stays unknown (the attribute is left out, not guessed).
 */
import { PROVIDER } from "./attributes.ts";

const BY_MODEL: readonly [RegExp, string][] = [
  [/^(?:anthropic\/)?claude/i, PROVIDER.anthropic],
  [/^(?:openai\/)?(?:gpt|o\d|codex|chatgpt)/i, PROVIDER.openai],
  [/^(?:google\/|gemini\/)?gemini/i, PROVIDER.gemini],
];

const BY_PREFIX: Readonly<Record<string, string>> = { anthropic: PROVIDER.anthropic, openai: PROVIDER.openai, google: PROVIDER.gemini };

const BY_AGENT: readonly [RegExp, string][] = [
  [/^(?:claude|amp)/i, PROVIDER.anthropic],
  [/^codex/i, PROVIDER.openai],
  [/^gemini/i, PROVIDER.gemini],
];

/** The provider of `model`, else of `agent` (its name or dialect); undefined when neither says. */
export function providerOf(model: string | undefined, agent: string | undefined): string | undefined {
  if (model !== undefined) {
    for (const [pattern, provider] of BY_MODEL) if (pattern.test(model)) return provider;
    const prefix = model.includes("/") ? model.slice(0, model.indexOf("/")).toLowerCase() : undefined;
    if (prefix !== undefined) return BY_PREFIX[prefix] ?? prefix;
  }
  if (agent !== undefined) for (const [pattern, provider] of BY_AGENT) if (pattern.test(agent)) return provider;
  return undefined;
}
