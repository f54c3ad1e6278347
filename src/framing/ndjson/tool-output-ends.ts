/** How many lines a view shows from each end of a long tool output (`ConsumerReading.toolOutputEnds`, `render`). */
export interface EndsOptions {
  readonly head: number;
  readonly tail: number;
  /** Fewer hidden lines than this and the view shows them all: the string is kept whole. */
  readonly minHidden: number;
  /** The most columns the view shows of one line: a line of one-column characters longer than this is cut the same whatever follows. */
  readonly columns: number;
  /**
   * What the reader writes on the first line it cuts out of an output (`cutMarker()`): the view that asked finds
   * it there and shows the output as cut. Each further line cut is kept as an empty line, so the output still has
   * its line count: it says how much was cut.
   */
  readonly marker: string;
}

/**
 * A fresh marker for `EndsOptions.marker`: a NUL and a nonce, which no agent text holds unless it guesses the
 * nonce (a view shows a NUL as a visible escape, and never shows the cut lines anyway).
 */
export function cutMarker(): string {
  return `\u0000agentstream-cut-${Math.random().toString(36).slice(2, 12)}`;
}
