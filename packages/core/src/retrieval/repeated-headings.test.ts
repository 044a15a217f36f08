import { withoutRepeatedHeadings } from './repeated-headings';

describe('withoutRepeatedHeadings', () => {
  it('drops the first headings that the title already says, whatever their level and marks', () => {
    const text = '# git-stage(1) Manual Page\n\n## NAME\n\ngit-stage - Add file contents to the staging area';
    expect(withoutRepeatedHeadings(text, 'git-stage(1) › git-stage(1) Manual Page › NAME')).toBe(
      'git-stage - Add file contents to the staging area',
    );
    expect(withoutRepeatedHeadings('## `fs.rm(path)`\n\nRemoves files.', 'File system › fs.rm(path)')).toBe(
      'Removes files.',
    );
  });

  it('keeps a first heading the title does not say, and every heading inside the text', () => {
    const text = '## Options\n\nThe options:\n\n## Child process\n\nMore.';
    expect(withoutRepeatedHeadings(text, 'Child process')).toBe(text);
  });

  it('drops headings that end the text with nothing under them', () => {
    expect(withoutRepeatedHeadings('This is a synonym for git-add(1).\n\n## GIT\n', 'git-stage(1)')).toBe(
      'This is a synonym for git-add(1).',
    );
  });

  it('keeps a last line starting with # inside an unclosed code block, and text made only of headings', () => {
    const code = 'Run it:\n\n```sh\nmake install\n# done';
    expect(withoutRepeatedHeadings(code, 'Install')).toBe(code);
    expect(withoutRepeatedHeadings('## Install', 'Install')).toBe('## Install');
  });
});
