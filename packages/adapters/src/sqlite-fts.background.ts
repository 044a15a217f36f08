import { eng } from 'stopword';
import { loadGeneralTermShares } from './local-lsi/general-model';
import { lsiTerms } from './local-lsi/lsi-terms';
import type { KeywordBackground } from './sqlite-fts.library-search';

const STOP_WORDS = new Set(eng);
/** A stop word the general model does not count ("get", "all"): as if in half of its corpus's files. */
const STOP_WORD_SHARE = 0.5;

/**
 * Document frequencies that no library written to the store can change: the share of the general-language model's
 * corpus files (101 Debian documentation packages, models/README.md) holding each term, stemmed as that model stems.
 * A word the corpus never held (an identifier, a number) counts as in as few files as its rarest term.
 */
export class GeneralTermsBackground implements KeywordBackground {
  private shares?: Map<string, number>;
  private unseen = 0;

  share(word: string): number {
    if (!this.shares) {
      this.shares = loadGeneralTermShares();
      this.unseen = [...this.shares.values()].reduce((least, share) => Math.min(least, share), 1);
    }
    const [term] = lsiTerms(word);
    if (term) return this.shares.get(term) ?? this.unseen;
    return word.length < 2 || STOP_WORDS.has(word) ? STOP_WORD_SHARE : this.unseen;
  }
}
