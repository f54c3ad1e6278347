/**
 * Decoders as tables of small handlers keyed by record type. A table names every type of its wire
 * union (`Record<Type, Handler>`), so a type added to the wire without a handler does not compile;
 * `dispatch` answers false for a type the table does not know, and the decoder keeps that record as `unknown`.
 */
import type { AgentEventDraft } from "../model/events.ts";
import type { DecodeContext } from "./dialect.ts";

/** Decodes one record of its type: pushes drafts to `out`, reads and updates the decoder's `state`. */
export type Handler<R, S> = (record: R, state: S, out: AgentEventDraft[], context: DecodeContext) => void;

/** One handler per record type. */
export type HandlerTable<Type extends string, R, S> = { readonly [K in Type]: Handler<R, S> };

/** A table typed against its wire union's record types (the identity, for inference and exhaustiveness). */
export function handlers<Type extends string, R, S>(table: HandlerTable<Type, R, S>): HandlerTable<Type, R, S> {
  return table;
}

/** Runs the table's handler for `type`; false when the table has none (the caller reports the record). */
export function dispatch<Type extends string, R, S>(
  table: HandlerTable<Type, R, S>,
  type: string,
  record: R,
  state: S,
  out: AgentEventDraft[],
  context: DecodeContext,
): boolean {
  if (!Object.hasOwn(table, type)) return false;
  table[type as Type](record, state, out, context);
  return true;
}
