import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/** What a question asks for: a task, a symptom or error, a named API, or a what-or-why. */
export const KINDS = ['how-to', 'troubleshooting', 'api', 'concept'] as const;

const pageSetSchema = z.object({
  /** Folders under the root whose HTML pages are ingested ('' for the root itself). */
  dirs: z.array(z.string()),
  /** Pages left out (indexes, search pages, single-page copies), relative to the root. */
  exclude: z.array(z.string()),
});

const questionSetSchema = z.object({
  description: z.string(),
  /** Each library: its pages under .cache/debian-docs/<root>. */
  libraries: z.record(z.string(), z.object({ root: z.string().endsWith('/'), pages: pageSetSchema })),
  questions: z.array(
    z.object({
      id: z.string(),
      library: z.string(),
      kind: z.enum(KINDS),
      question: z.string().min(1),
      /** The pages that answer it, relative to the library's root. */
      answers: z.array(z.string()).min(1),
    }),
  ),
});

export type QuestionSet = z.infer<typeof questionSetSchema> & { name: string };
export type Question = QuestionSet['questions'][number];
export type Library = QuestionSet['libraries'][string];

const SETS = path.join(__dirname, 'sets');

/**
 * The development set (`sets/dev.json`, the only one ranking is tuned on) and the test set (every file of
 * `sets/test/`, written before any tuning against it and never tuned on), checked: each question's library exists and
 * each answer is a page that library ingests.
 */
export function loadQuestionSets(docsRoot: string): { dev: QuestionSet; test: QuestionSet } {
  const read = (file: string) => questionSetSchema.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
  const dev = { name: 'development', ...read(path.join(SETS, 'dev.json')) };
  const parts = fs
    .readdirSync(path.join(SETS, 'test'))
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => read(path.join(SETS, 'test', file)));
  const test = {
    name: 'test',
    description: parts.map((part) => part.description).join('\n'),
    libraries: Object.assign({}, ...parts.map((part) => part.libraries)) as QuestionSet['libraries'],
    questions: parts.flatMap((part) => part.questions),
  };
  for (const set of [dev, test]) checkAnswers(set, docsRoot);
  return { dev, test };
}

function checkAnswers(set: QuestionSet, docsRoot: string): void {
  const pagesOf = new Map(
    Object.entries(set.libraries).map(([name, library]) => [name, new Set(listPages(docsRoot, library))]),
  );
  for (const question of set.questions) {
    const pages = pagesOf.get(question.library);
    if (!pages) throw new Error(`${set.name} ${question.id}: no library '${question.library}'`);
    const missing = question.answers.filter((answer) => !pages.has(answer));
    if (missing.length > 0) throw new Error(`${set.name} ${question.id}: answers not ingested: ${missing.join(', ')}`);
  }
}

/** The library's HTML pages, relative to its root, in a stable order. */
export function listPages(docsRoot: string, library: Library): string[] {
  return library.pages.dirs.flatMap((dir) =>
    fs
      .readdirSync(path.join(docsRoot, library.root, dir))
      .filter((file) => file.endsWith('.html') && !library.pages.exclude.includes(`${dir}${file}`))
      .sort()
      .map((file) => `${dir}${file}`),
  );
}
