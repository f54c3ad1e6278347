/** Vercel AI SDK UI message stream chunks (docs/formats/ai-sdk.md). */
import type { JsonValue } from "../../model/events.ts";

/** One UI message chunk as we write it. */
export type Chunk = { type: string } & { [key: string]: JsonValue | undefined };
