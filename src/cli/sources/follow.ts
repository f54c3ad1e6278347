/**
 * A followed file as a source (`--follow`, like `tail -F`): the follower of src/follow/ (appends,
 * truncation, rewriting, replacement), its restarts handed to the pipeline as they are.
 */
import { followFile, type FollowOptions } from "../../follow/follow-file.ts";
import type { Source } from "./source.ts";

export type { FollowOptions };

/**
 * @example
 * const stop = new AbortController();
 * process.once("SIGINT", () => stop.abort());
 * await readInputs({ sources: [followSource("session.jsonl", { signal: stop.signal })], io, reading, sink, output });
 */
export function followSource(path: string, options: FollowOptions): Source {
  return { name: path, live: true, chunks: () => followFile(path, options) };
}
