import type { EmbedderStateStore, LibraryStore } from '@docshelf/core';

export interface EmbedderStateStoreHarness {
  states: EmbedderStateStore;
  /** The library store the states are kept with: deleting a library deletes its states. */
  libraries: LibraryStore;
  cleanup(): Promise<void>;
}

const state = (id: string, bytes = 64) => ({ id, data: Buffer.alloc(bytes, id) });

/** Behaviour every EmbedderStateStore adapter must show. */
export function describeEmbedderStateStoreContract(
  label: string,
  create: () => Promise<EmbedderStateStoreHarness>,
): void {
  describe(`EmbedderStateStore contract: ${label}`, () => {
    let harness: EmbedderStateStoreHarness;
    let states: EmbedderStateStore;

    beforeEach(async () => {
      harness = await create();
      states = harness.states;
      for (const id of ['acme/a', 'acme/b']) {
        await harness.libraries.commitIngestion({
          library: { id, name: id, sourceType: 'llms_txt' },
          ownerId: 'owner',
          chunks: [{ id: 'c', content: 'text' }],
          replace: false,
          ingestionId: `${id}-ingestion`,
          now: new Date(),
        });
      }
    });

    afterEach(async () => {
      await harness.cleanup();
    });

    it('keeps the first state stored for a library and model, and returns it to a later writer', async () => {
      expect(await states.getEmbedderState('acme/a', 'm1')).toBeNull();
      expect(await states.getEmbedderStateId('acme/a', 'm1')).toBeNull();
      const first = await states.putEmbedderState('acme/a', 'm1', state('one'));
      expect(first.id).toBe('one');
      const second = await states.putEmbedderState('acme/a', 'm1', state('two'));
      expect(second.id).toBe('one');
      expect(second.data.equals(state('one').data)).toBe(true);
      expect(await states.getEmbedderStateId('acme/a', 'm1')).toBe('one');
    });

    it('keeps states of other libraries and models apart, and stores a few megabytes', async () => {
      const large = state('large', 5 * 1024 * 1024);
      await states.putEmbedderState('acme/a', 'm1', large);
      await states.putEmbedderState('acme/a', 'm2', state('other-model'));
      await states.putEmbedderState('acme/b', 'm1', state('other-library'));
      expect((await states.getEmbedderState('acme/a', 'm1'))!.data.equals(large.data)).toBe(true);
      expect(await states.getEmbedderStateId('acme/a', 'm2')).toBe('other-model');
      expect(await states.getEmbedderStateId('acme/b', 'm1')).toBe('other-library');
    });

    it("moves with a replacement swapped into its library, replacing the library's own", async () => {
      const staged = '~staged/6f1c1e9e-3b0a-4c55-9a51-1f4f3b1c2d3e';
      await harness.libraries.commitIngestion({
        library: { id: staged, name: 'a', sourceType: 'llms_txt' },
        ownerId: 'owner',
        chunks: [{ id: 'c', content: 'new text' }],
        replace: true,
        ingestionId: 'replacement',
        now: new Date(),
      });
      await states.putEmbedderState('acme/a', 'm1', state('old'));
      await states.putEmbedderState(staged, 'm1', state('new'));
      await harness.libraries.swapLibrary(staged, 'acme/a', new Date());
      expect(await states.getEmbedderStateId('acme/a', 'm1')).toBe('new');
      expect(await states.getEmbedderStateId(staged, 'm1')).toBeNull();
    });

    it('forgets a state when asked and when its library is deleted', async () => {
      await states.putEmbedderState('acme/a', 'm1', state('one'));
      await states.putEmbedderState('acme/b', 'm1', state('two'));
      await states.deleteEmbedderState('acme/a', 'm1');
      expect(await states.getEmbedderState('acme/a', 'm1')).toBeNull();
      expect((await states.putEmbedderState('acme/a', 'm1', state('three'))).id).toBe('three');
      await harness.libraries.deleteLibrary('acme/b');
      expect(await states.getEmbedderStateId('acme/b', 'm1')).toBeNull();
      expect(await states.getEmbedderStateId('acme/a', 'm1')).toBe('three');
    });
  });
}
