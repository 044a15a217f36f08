import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { GENERAL_MODEL_FILE, GENERAL_MODEL_SHA256, loadGeneralModel, nearestTerms } from './general-model';
import { lsiTerms } from './lsi-terms';

const termOf = (word: string) => lsiTerms(word)[0]!;
const neighboursOf = (word: string) => nearestTerms(loadGeneralModel(), termOf(word), 20).map(({ term }) => term);

describe('the general-language model', () => {
  it('is the file the training script wrote, as recorded', () => {
    const digest = createHash('sha256').update(readFileSync(GENERAL_MODEL_FILE)).digest('hex');
    expect(digest).toBe(GENERAL_MODEL_SHA256);
  });

  it('loads as an LSI model of tens of thousands of lsiTerms terms', () => {
    const model = loadGeneralModel();
    expect(model.vocabulary.length).toBeGreaterThan(80_000);
    expect(model.dimensions).toBe(192);
    expect(model.vocabulary).toEqual(expect.arrayContaining(['directori', 'delet', 'permiss', 'thread']));
    expect(loadGeneralModel()).toBe(model);
  });

  it('places words of like meaning near each other', () => {
    expect(neighboursOf('directory')).toEqual(expect.arrayContaining([termOf('subdirectory')]));
    expect(neighboursOf('error')).toEqual(expect.arrayContaining([termOf('failure')]));
    expect(neighboursOf('memory')).toEqual(expect.arrayContaining([termOf('heap')]));
    expect(neighboursOf('slow')).toEqual(expect.arrayContaining([termOf('faster')]));
    expect(neighboursOf('permission')).toEqual(expect.arrayContaining([termOf('owner'), termOf('privilege')]));
    expect(neighboursOf('delete')).toEqual(expect.arrayContaining([termOf('remove')]));
    expect(neighboursOf('crash')).toEqual(expect.arrayContaining([termOf('hang')]));
    expect(neighboursOf('undo')).toEqual(expect.arrayContaining([termOf('redo')]));
    expect(neighboursOf('socket')).toEqual(expect.arrayContaining([termOf('datagram')]));
  });

  it('knows no neighbours of a term it never saw', () => {
    expect(nearestTerms(loadGeneralModel(), 'qqqzzzx', 5)).toEqual([]);
  });
});
