import { expect } from 'chai';
import { checkGlob, compileGlobs, pathsOutside, withAutoMergeNote } from '../../../../src/domain/jobs/allowed-paths.js';

const outside = (globs: string[], paths: string[]) => pathsOutside(paths, compileGlobs(globs));

describe('ALLOWED_PATHS globs', () => {
  it('logs/** allows every file under logs/, at any depth, and nothing else', () => {
    expect(outside(['logs/**'], ['logs/a.md', 'logs/1/job.md', 'logs/x/y/z.txt', 'logs', 'logsx/a', 'src/logs/a', 'README.md'])).to.deep.equal([
      'logs',
      'logsx/a',
      'src/logs/a',
      'README.md',
    ]);
  });

  it('* and ? stay within one path segment; ** in the middle spans any segments, none included', () => {
    expect(outside(['docs/*.md'], ['docs/a.md', 'docs/sub/a.md', 'docs/a.txt'])).to.deep.equal(['docs/sub/a.md', 'docs/a.txt']);
    expect(outside(['v?.txt'], ['v1.txt', 'v12.txt'])).to.deep.equal(['v12.txt']);
    expect(outside(['**/CHANGELOG.md'], ['CHANGELOG.md', 'a/b/CHANGELOG.md', 'a/CHANGELOG.mdx'])).to.deep.equal(['a/CHANGELOG.mdx']);
    expect(outside(['a/**/b'], ['a/b', 'a/x/y/b', 'a/x/c'])).to.deep.equal(['a/x/c']);
  });

  it('treats regex characters in globs literally, and allows a path any glob of the list allows', () => {
    expect(outside(['notes/(draft)+.md', 'logs/**'], ['notes/(draft)+.md', 'notes/draftdraft.md', 'logs/x'])).to.deep.equal(['notes/draftdraft.md']);
  });

  it('refuses absolute globs, . and .. segments, and ** inside a segment', () => {
    expect(checkGlob('logs/**')).to.equal(undefined);
    expect(checkGlob('/logs/**')).to.match(/starts with \//);
    expect(checkGlob('logs/../src/**')).to.match(/\.\. segments/);
    expect(checkGlob('logs/a**')).to.match(/whole path segment/);
  });
});

describe('withAutoMergeNote', () => {
  it('adds one Auto-merge line to the summary and replaces it on the next attempt', () => {
    const first = withAutoMergeNote('Handed to GitHub Actions on job/1', 'waiting for checks');
    expect(first).to.equal('Handed to GitHub Actions on job/1\nAuto-merge: waiting for checks');
    expect(withAutoMergeNote(first, 'merged pull request #5')).to.equal('Handed to GitHub Actions on job/1\nAuto-merge: merged pull request #5');
    expect(withAutoMergeNote(null, 'x')).to.equal('Auto-merge: x');
  });
});
