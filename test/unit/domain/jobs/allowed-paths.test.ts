import { expect } from 'chai';
import { checkGlob, compileGlobs, globMatches, pathsOutside, withAutoMergeNote } from '../../../../src/domain/jobs/allowed-paths.js';

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

  it('repeats a refused glob cut to its first 40 characters and …, as other refused values (a megabyte-long glob was repeated whole)', () => {
    const tail = 'x'.repeat(1024 * 1024);
    const cut = (glob: string) => `"${glob.slice(0, 40)}…"`;
    for (const [glob, problem] of [
      [`/logs/${tail}`, 'starts with /: paths are relative to the repository root'],
      [`logs/../${tail}`, 'has . or .. segments'],
      [`logs/a**${tail}`, ': ** must be a whole path segment (logs/** or **/x.md)'],
      [`**/**/${tail}`, 'has ** twice in a row: one ** spans any number of segments'],
    ]) {
      expect(checkGlob(glob)).to.equal(`${cut(glob)}${problem.startsWith(':') ? '' : ' '}${problem}`);
    }
    // Never half of a surrogate pair.
    expect(checkGlob(`/${'a'.repeat(38)}🎉b`)).to.equal(`"/${'a'.repeat(38)}…" starts with /: paths are relative to the repository root`);
    expect(checkGlob('/logs/**')).to.equal('"/logs/**" starts with /: paths are relative to the repository root');
  });

  it('refuses ** twice in a row, anywhere in the glob; ** apart is fine', () => {
    for (const glob of ['**/**', 'a/**/**/b', '**/**/**/x.md', 'logs/**/**']) expect(checkGlob(glob), glob).to.match(/\*\* twice in a row/);
    expect(checkGlob('**/x/**')).to.equal(undefined);
    expect(checkGlob('a/**/b/**/c')).to.equal(undefined);
  });

  it('matches a path of 10 000 segments against a/**/b/**/c in work that grows with the path, not its square', () => {
    const [glob] = compileGlobs(['a/**/b/**/c']);
    // Many places where the first ** could end: a backtracking matcher tries each of them for the second.
    const cases: Array<[string, boolean]> = [
      [`a/${'b/'.repeat(9998)}x`, false],
      [`a/${'b/'.repeat(9998)}c`, true],
      [`a/${'bb/'.repeat(9998)}c`, false],
      [`a/${'x/'.repeat(4999)}b/${'y/'.repeat(4998)}c`, true],
    ];
    for (const [path, allowed] of cases) {
      const steps = { count: 0 };
      expect(globMatches(glob, path, steps), path.slice(-20)).to.equal(allowed);
      expect(steps.count, `steps for ${path.length} characters`).to.be.at.most(2 * path.length);
    }
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
