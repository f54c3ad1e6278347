/**
 * The formats agentstream reads, as the dialects that decode them, in detection order (codex-thread before codex):
 * each is its format's definition `dialect` (src/formats/index.ts), listed again here so that reading a stream
 * (src/dialects.ts) loads the decoders only, not every format's encoder and schema. test/architecture.test.ts keeps
 * this list equal to the registry's; a format that is read adds its line here too.
 */
import type { Dialect } from "../dialect/dialect.ts";
import { aaep } from "./aaep/decode.ts";
import { agentstream } from "./agentstream/decode.ts";
import { codexThread } from "./codex-thread/decode.ts";
import { oneshot } from "./oneshot/decode.ts";
import { witness } from "./witness/decode.ts";

export const formatDialects: readonly Dialect[] = [agentstream, witness, oneshot, aaep, codexThread];
