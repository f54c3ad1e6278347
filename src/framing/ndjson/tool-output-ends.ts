/** How many lines a view shows from each end of a long tool output (`ReadOptions.toolOutputEnds`, `render`). */
export interface EndsOptions {
  readonly head: number;
  readonly tail: number;
  /** Fewer hidden lines than this and the view shows them all: the string is kept whole. */
  readonly minHidden: number;
  /** The most columns the view shows of one line: a line of one-column characters longer than this is cut the same whatever follows. */
  readonly columns: number;
}
