import type { ContextResponse } from '../api/retrieval-schemas';
import { libraryVersions } from './library-versions';
import { packContext } from './pack-context';
import { rankChunks, type RetrievalDeps } from './rank-chunks';

export interface BuildContextRequest {
  libraryId: string;
  query: string;
  /** Token budget of the packed text. */
  tokens: number;
}

export interface BuiltContext {
  response: ContextResponse;
  /** The same pieces as plain text ready for a prompt, within the budget. */
  text: string;
}

/** Candidates ranked per budget token: enough chunks to fill the budget after merges and misses. */
const TOKENS_PER_CANDIDATE = 150;
const MIN_CANDIDATES = 20;
const MAX_CANDIDATES = 300;

/** GET /api/context: the most relevant text of one library packed into at most `tokens` tokens. */
export async function buildContext(deps: RetrievalDeps, request: BuildContextRequest): Promise<BuiltContext> {
  const limit = Math.min(MAX_CANDIDATES, Math.max(MIN_CANDIDATES, Math.ceil(request.tokens / TOKENS_PER_CANDIDATE)));
  const { chunks } = await rankChunks(deps, { query: request.query, libraryIds: [request.libraryId], limit });
  const packed = packContext(chunks, request.tokens, await libraryVersions(deps.libraries, [request.libraryId]));
  return {
    response: { libraryId: request.libraryId, query: request.query, tokens: packed.tokens, pieces: packed.pieces },
    text: packed.text,
  };
}
