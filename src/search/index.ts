/** Search across every agent's sessions (docs/search.md): the API the CLI, the MCP server and the web view share. */
export { openSearchIndex } from "./open-search-index.ts";
export { parseTimeBound } from "./time.ts";
export {
  SEARCH_FIELDS,
  SEARCH_STATUSES,
  type MatchRange,
  type SearchField,
  type SearchHit,
  type SearchIndex,
  type SearchIndexOptions,
  type SearchQuery,
  type SearchResult,
  type SearchStatus,
  type UpdateReport,
} from "./types.ts";
