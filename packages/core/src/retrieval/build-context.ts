import type { ContextResponse } from '../api/retrieval-schemas';
import { packContext } from './pack-context';
import { rankChunks, type RetrievalDeps } from './rank-chunks';
import { resolveLibrary } from './resolve-library';

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

/**
 * GET /api/context: the most relevant text of one library packed into at most `tokens` tokens. A base id reads its
 * newest version (resolveLibrary), and the answer's `libraryId` names the library read.
 */
export async function buildContext(deps: RetrievalDeps, request: BuildContextRequest): Promise<BuiltContext> {
  const library = await resolveLibrary(deps.libraries, request.libraryId);
  const limit = Math.min(MAX_CANDIDATES, Math.max(MIN_CANDIDATES, Math.ceil(request.tokens / TOKENS_PER_CANDIDATE)));
  const { chunks } = await rankChunks(deps, { query: request.query, libraryIds: [library.id], limit });
  const packed = packContext(chunks, request.tokens, new Map([[library.id, library.version ?? null]]));
  return {
    response: { libraryId: library.id, query: request.query, tokens: packed.tokens, pieces: packed.pieces },
    text: packed.text,
  };
}
