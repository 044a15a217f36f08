export { queryTerms, identifierParts, searchableText, searchableTitle, withoutLinkTargets } from './query-terms';
export { countTokens, truncateToTokens, TOKENIZER } from './token-count';
export { fuseRankings, RRF_K, type Ranking } from './fuse-rankings';
export {
  rankChunks,
  embedderOf,
  type RetrievalDeps,
  type RankRequest,
  type RankedChunk,
  type SearchMode,
} from './rank-chunks';
export {
  packContext,
  joinWithoutOverlap,
  sourceLine,
  type ContextPiece,
  type LibraryVersions,
  type PackedContext,
} from './pack-context';
export { libraryVersions } from './library-versions';
export { searchDocs, type SearchDocsRequest } from './search-docs';
export { buildContext, type BuildContextRequest, type BuiltContext } from './build-context';
export { pageChunks } from './page-chunks';
export { resolveLibrary, resolveLibraries, type LibraryResolver } from './resolve-library';
export { pageLeads, chunkHeadings } from './page-leads';
export { rankLibraries } from './rank-libraries';
