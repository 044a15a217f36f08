import { GeneralTermsBackground } from './sqlite-fts.background';

describe('GeneralTermsBackground', () => {
  const background = new GeneralTermsBackground();

  it("gives the share of the general model's corpus files holding a word, stemmed as the model stems", () => {
    const file = background.share('file');
    expect(file).toBeGreaterThan(0.1);
    expect(file).toBeLessThan(1);
    expect(background.share('files')).toBe(file);
    expect(background.share('rebase')).toBeLessThan(background.share('branch'));
    expect(background.share('branch')).toBeLessThan(file);
  });

  it('counts a word the corpus never held as its rarest, and a stop word as common', () => {
    const unseen = background.share('zzyzxqframistat');
    expect(unseen).toBeGreaterThan(0);
    expect(unseen).toBeLessThanOrEqual(background.share('rebase'));
    expect(background.share('404')).toBe(unseen);
    expect(background.share('get')).toBe(0.5);
  });
});
