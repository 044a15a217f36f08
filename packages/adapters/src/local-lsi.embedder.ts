import {
  chunkPages,
  embeddingTextOf,
  type Embedder,
  type EmbedderStateStore,
  type EmbedScope,
  type LibraryStore,
} from '@docshelf/core';
import { fitLsiInThread } from './local-lsi/learn-in-thread';
import { LsiModel } from './local-lsi/lsi-model';
import { lsiTerms } from './local-lsi/lsi-terms';
import { LocalEmbedder } from './local.embedder';

/** Share of the vector given to the hashed lexical features; the rest is the latent semantic part. */
const LEXICAL_SHARE = 0.4;
/**
 * With a general model: its share of the vector's weight and of its dimensions, taken from the library's latent part.
 * The best of five settings on the evaluation's development set (`npm run eval:retrieval -- --set dev`).
 */
const GENERAL_SHARE = 0.35;
const GENERAL_DIMENSION_SHARE = 0.3;
/** Chunks read per page while learning a library. */
const READ_PAGE = 1_000;
/**
 * The most chunks a library's space is learned from: a bigger library is learned from chunks spread evenly over it
 * (every k-th in library order) and the rest placed in that space like any later chunk. The learning's time and
 * memory grow with the chunks it reads, so this bounds both (a few seconds and a few hundred MB); the space of a
 * library's typical terms hardly changes past it.
 */
export const LEARN_SAMPLE_MAX = 20_000;
/** Memory for libraries' models unless said (EMBEDDER_CACHE_MB): past it the least recently used is read again. */
const DEFAULT_CACHE_BYTES = 512 * 2 ** 20;

export interface LocalLsiEmbedderDeps {
  /** Where what was learned from each library is kept (the record store). */
  states: EmbedderStateStore;
  /** The library's chunks, read when it is first learned. */
  libraries: Pick<LibraryStore, 'listChunks' | 'listChunksOfIngestion' | 'countChunks'>;
  /** The most chunks a library is learned from (LEARN_SAMPLE_MAX unless said). */
  learnSampleMax?: number;
  /**
   * Term vectors of general technical English learned offline from a large corpus (`local-lsi/general-model.ts`): with them,
   * texts are also placed in a space shared by every library, where words that keep the same company across many
   * manuals ("folder" and "directory") come close even when one library never says both. The model is then
   * `local-lsi-v2`; without them `local-lsi-v1`. Read on first use: a process that never embeds never loads it.
   */
  general?: () => LsiModel;
  /**
   * Memory for libraries' models kept between uses (about 10 MB for a library of 30,000 distinct words): a search
   * over many libraries places its question with each library's model, and a model read again costs milliseconds.
   */
  cacheBytes?: number;
}

/**
 * Offline Embedder with meaning of its own: latent semantic indexing learned from each library's own text, beside
 * the hashed words, word pairs and trigrams of `local-hash-v1`. The first time a library's chunks are embedded it
 * learns the library's term space from its chunks (randomized SVD of the tf-idf matrix; at most LEARN_SAMPLE_MAX
 * of them) and stores it with the library's records; every later chunk and every question is placed in that space, so "remove a folder" comes
 * close to a chunk about `rmdir` that says "delete a directory". The stored space is dropped with the library's
 * vectors (replace, delete), and learned again from what the library then holds.
 */
export class LocalLsiEmbedder implements Embedder {
  readonly model: string;
  private readonly lexical: LocalEmbedder;
  private readonly latentDimensions: number;
  private readonly generalDimensions: number;
  private readonly cache = new Map<string, { id: string; model: LsiModel }>();
  private readonly learning = new Map<string, Promise<{ id: string; model: LsiModel }>>();

  constructor(
    private readonly deps: LocalLsiEmbedderDeps,
    readonly dimensions = 256,
  ) {
    if (!Number.isInteger(dimensions) || dimensions < 8) {
      throw new Error(`embedder dimensions must be an integer of at least 8, got ${dimensions}`);
    }
    const lexicalDimensions = Math.round(dimensions * LEXICAL_SHARE);
    this.lexical = new LocalEmbedder(lexicalDimensions);
    this.generalDimensions = deps.general ? Math.round(dimensions * GENERAL_DIMENSION_SHARE) : 0;
    this.latentDimensions = dimensions - lexicalDimensions - this.generalDimensions;
    this.model = deps.general ? 'local-lsi-v2' : 'local-lsi-v1';
  }

  async embed(texts: string[], scope?: EmbedScope): Promise<number[][]> {
    if (!scope) throw new Error(`${this.model} places texts in one library's space: name the library`);
    if (texts.length === 0) return [];
    // A question never makes the service learn a library: without a learned space it is placed by its words alone.
    const learned =
      scope.kind === 'document' ? await this.learnedOrLearn(scope.libraryId) : await this.learned(scope.libraryId);
    const lexical = await this.lexical.embed(texts);
    const generalShare = this.generalDimensions > 0 ? GENERAL_SHARE : 0;
    const latentWeight = Math.sqrt(1 - LEXICAL_SHARE - generalShare);
    const generalWeight = Math.sqrt(generalShare);
    const lexicalWeight = Math.sqrt(LEXICAL_SHARE);
    const general = this.deps.general?.();
    return texts.map((text, i) => {
      const terms = lsiTerms(text);
      const latent = learned?.model.project(terms) ?? new Float32Array(this.latentDimensions);
      const vector = new Array<number>(this.dimensions);
      for (let d = 0; d < this.latentDimensions; d++) vector[d] = latentWeight * latent[d]!;
      if (general) {
        // The model's first directions (its strongest); zeros past its own size.
        const placed = unit(general.project(terms).subarray(0, this.generalDimensions));
        for (let d = 0; d < this.generalDimensions; d++)
          vector[this.latentDimensions + d] = generalWeight * (placed[d] ?? 0);
      }
      const lexicalStart = this.latentDimensions + this.generalDimensions;
      lexical[i]!.forEach((value, d) => (vector[lexicalStart + d] = lexicalWeight * value));
      return normalize(vector);
    });
  }

  async forget(libraryId: string): Promise<void> {
    this.cache.delete(libraryId);
    await this.deps.states.deleteEmbedderState(libraryId, this.model);
  }

  async shareLearned(from: string, to: string): Promise<boolean> {
    const state = await this.deps.states.getEmbedderState(from, this.model);
    if (!state) return false;
    await this.deps.states.putEmbedderState(to, this.model, state);
    return true;
  }

  /** The library's stored space, read again only when its id changed since it was cached. */
  private async learned(libraryId: string): Promise<{ id: string; model: LsiModel } | null> {
    const id = await this.deps.states.getEmbedderStateId(libraryId, this.model);
    if (id === null) {
      this.cache.delete(libraryId);
      return null;
    }
    const cached = this.cache.get(libraryId);
    if (cached?.id === id) {
      // Most recently used last.
      this.cache.delete(libraryId);
      this.cache.set(libraryId, cached);
      return cached;
    }
    const state = await this.deps.states.getEmbedderState(libraryId, this.model);
    return state ? this.remember(libraryId, state.id, LsiModel.deserialize(state.data)) : null;
  }

  private async learnedOrLearn(libraryId: string): Promise<{ id: string; model: LsiModel }> {
    const known = await this.learned(libraryId);
    if (known) return known;
    // One learning per library in this process; another process learning at once stores the same or loses the race.
    let pending = this.learning.get(libraryId);
    if (!pending) {
      pending = this.learn(libraryId).finally(() => this.learning.delete(libraryId));
      this.learning.set(libraryId, pending);
    }
    return pending;
  }

  private async learn(libraryId: string): Promise<{ id: string; model: LsiModel }> {
    const documents: string[][] = [];
    const sample = this.deps.learnSampleMax ?? LEARN_SAMPLE_MAX;
    const every = Math.max(1, Math.ceil((await this.deps.libraries.countChunks(libraryId)) / sample));
    let index = 0;
    for await (const page of chunkPages(this.deps.libraries, libraryId, { pageSize: READ_PAGE })) {
      for (const chunk of page) {
        if (index++ % every === 0 && documents.length < sample) {
          documents.push(lsiTerms(embeddingTextOf(chunk)));
        }
      }
    }
    const data = await fitLsiInThread(documents, { dimensions: this.latentDimensions });
    const stored = await this.deps.states.putEmbedderState(libraryId, this.model, { id: LsiModel.idOf(data), data });
    return this.remember(libraryId, stored.id, LsiModel.deserialize(stored.data));
  }

  private remember(libraryId: string, id: string, model: LsiModel): { id: string; model: LsiModel } {
    this.cache.delete(libraryId);
    const budget = this.deps.cacheBytes ?? DEFAULT_CACHE_BYTES;
    let held = model.bytes;
    for (const other of this.cache.values()) held += other.model.bytes;
    // The least recently used leave first; the model just read stays whatever its size.
    for (const [other, { model: kept }] of this.cache) {
      if (held <= budget) break;
      this.cache.delete(other);
      held -= kept.bytes;
    }
    const entry = { id, model };
    this.cache.set(libraryId, entry);
    return entry;
  }
}

/** The vector scaled to unit length (all zeros stay zeros). */
function unit(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const value of vector) norm += value * value;
  if (norm === 0) return vector;
  norm = Math.sqrt(norm);
  return vector.map((value) => value / norm);
}

function normalize(vector: number[]): number[] {
  const norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
  return norm === 0 ? vector.map((_, i) => (i === 0 ? 1 : 0)) : vector.map((value) => value / norm);
}
