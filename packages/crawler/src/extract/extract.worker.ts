import { extractPage, type ExtractedPage } from './extract-page';
import { needsBrowser } from './needs-browser';

export interface ExtractTask {
  html: string;
  url: string;
  /** Leave a script shell alone (auto mode): the browser renders it and its rendered HTML is extracted instead. */
  unlessShell?: boolean;
}

export type ExtractOutcome = { page: ExtractedPage } | { needsBrowser: true };

/** One page's extraction, run in a thread of the extraction pool (or inline): parsing a large page is CPU work. */
export default function extractTask(task: ExtractTask): ExtractOutcome {
  if (task.unlessShell && needsBrowser(task.html)) return { needsBrowser: true };
  return { page: extractPage(task.html, task.url) };
}
