/**
 * A source over any chunk stream that is already open: a child process's stdout
 * (`agentstream run`), a socket, a subscription. Read once.
 */
import type { Source } from "./source.ts";

/**
 * @example
 * const child = spawn("codex", ["exec", "--json", prompt], { stdio: ["ignore", "pipe", "inherit"] });
 * await readInputs({ sources: [iterableSource("codex", child.stdout)], io, reading, sink, output });
 */
export function iterableSource(
  name: string,
  chunks: AsyncIterable<Uint8Array | string>,
  options: { readonly live?: boolean } = {},
): Source {
  return { name, live: options.live ?? true, chunks: () => chunks };
}
