import { chunkMarkdown } from '@docshelf/core';
import { convertDocFile } from './convert-doc-file';

const page = [
  '.. _queue-guide:',
  '',
  '==========',
  'Job queues',
  '==========',
  '',
  'Docshelf runs each request as a job.',
  'See :ref:`the overview <overview>` and :func:`~docshelf.enqueue`.',
  '',
  'Creating a queue',
  '================',
  '',
  'Call ``Queue()`` with a name::',
  '',
  '    queue = Queue("ingest")',
  '    queue.add(job)',
  '',
  'Options',
  '-------',
  '',
  '.. code-block:: python',
  '   :linenos:',
  '',
  '   queue = Queue("ingest", retries=3)',
  '',
  '.. note::',
  '',
  '   Retries back off exponentially.',
  '',
  '.. toctree::',
  '   :maxdepth: 2',
  '',
  '   api',
  '',
  '.. this is a comment',
  '   over two lines',
  '',
  'Read `the BullMQ guide <https://docs.bullmq.io/>`_ for more.',
  '',
  '>>> queue.count()',
  '0',
  '',
  'Closing',
  '=======',
  '',
  'Close it with ``queue.close()``.',
].join('\n');

describe('reStructuredText files', () => {
  const file = convertDocFile('docs/queues.rst', page, 'rst');

  it('takes its first section title as its title', () => {
    expect(file.title).toBe('Job queues');
  });

  it('turns section titles into headings, their level by the order each adornment first appears', () => {
    const headings = file.markdown.split('\n').filter((line) => line.startsWith('#'));
    expect(headings).toEqual(['# Job queues', '## Creating a queue', '### Options', '## Closing']);
  });

  it('turns literal blocks, doctest blocks and code-block directives into fenced code', () => {
    expect(file.markdown).toContain('Call `Queue()` with a name:\n\n```\nqueue = Queue("ingest")\nqueue.add(job)\n```');
    expect(file.markdown).toContain('```python\nqueue = Queue("ingest", retries=3)\n```');
    expect(file.markdown).toContain('```python\n>>> queue.count()\n0\n```');
  });

  it('keeps admonitions as a label and their text; drops targets, comments and the toctree', () => {
    expect(file.markdown).toContain('**Note**\n\nRetries back off exponentially.');
    expect(file.markdown).not.toMatch(/queue-guide|comment|maxdepth|toctree/);
  });

  it('turns inline markup into Markdown', () => {
    expect(file.markdown).toContain('See the overview and `docshelf.enqueue`.');
    expect(file.markdown).toContain('Read [the BullMQ guide](https://docs.bullmq.io/) for more.');
  });

  it('chunks by section with the heading path in each title', () => {
    const chunks = chunkMarkdown(file.markdown, { pageUrl: 'docs/queues', pageTitle: file.title, targetWords: 20 });
    expect(chunks.map((chunk) => chunk.title)).toEqual(
      expect.arrayContaining(['Job queues › Creating a queue › Options', 'Job queues › Closing']),
    );
  });

  it('reads a title with only an underline, shorter than three characters', () => {
    expect(convertDocFile('x.rst', 'Hi\n==\n\nText.', 'rst')).toEqual({ title: 'Hi', markdown: '# Hi\n\nText.' });
  });
});
