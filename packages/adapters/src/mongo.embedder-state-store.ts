import type { EmbedderState, EmbedderStateStore } from '@docshelf/core';
import { isDuplicateKey, type MongoRecordDatabase } from './mongo.record-database';

/** The key of a library's state for one model. */
export const stateKey = (libraryId: string, model: string) => `${libraryId} ${model}`;

/** What the local embedders learned of each library, on MongoDB; swaps and deletes move it with the library. */
export class MongoEmbedderStateStore implements EmbedderStateStore {
  constructor(private readonly db: MongoRecordDatabase) {}

  async getEmbedderState(libraryId: string, model: string): Promise<EmbedderState | null> {
    const doc = await this.db.models.embedderStates
      .findById(stateKey(libraryId, model))
      .lean<{ stateId: string; data: { buffer: ArrayBuffer } | Buffer }>();
    return doc ? { id: doc.stateId, data: asBuffer(doc.data) } : null;
  }

  async getEmbedderStateId(libraryId: string, model: string): Promise<string | null> {
    const doc = await this.db.models.embedderStates
      .findById(stateKey(libraryId, model), { stateId: 1 })
      .lean<{ stateId: string }>();
    return doc?.stateId ?? null;
  }

  async putEmbedderState(libraryId: string, model: string, state: EmbedderState): Promise<EmbedderState> {
    try {
      await this.db.models.embedderStates.create({
        _id: stateKey(libraryId, model),
        libraryId,
        model,
        stateId: state.id,
        data: state.data,
        createdAt: new Date(),
      });
    } catch (error) {
      // Another process stored its state first: that one is the library's.
      if (!isDuplicateKey(error)) throw error;
    }
    return (await this.getEmbedderState(libraryId, model)) ?? state;
  }

  async deleteEmbedderState(libraryId: string, model: string): Promise<void> {
    await this.db.models.embedderStates.deleteOne({ _id: stateKey(libraryId, model) });
  }
}

/** A lean read gives BSON Binary for a Buffer field. */
function asBuffer(data: { buffer: ArrayBuffer } | Buffer): Buffer {
  if (Buffer.isBuffer(data)) return data;
  const binary = data as unknown as { buffer: Uint8Array };
  return Buffer.from(binary.buffer);
}
