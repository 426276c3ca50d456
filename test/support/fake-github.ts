import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback fake of the GitHub REST API (version 2022-11-28) for repository `acme/app` and
 * token `ghp_e2e`: what the job runner and auto-merge call. Pull requests, their head commits'
 * files, check runs and statuses are set by the test (`pulls`), and the files of commits that
 * are no pull's head (`commitFiles`); `compare/main...<sha>` lists a commit's files. List endpoints
 * paginate with `per_page` and `page` as GitHub does. The repository's git data is kept as
 * GitHub keeps it: refs point at commits, commits at a tree and their parents; the Git Data API
 * (`git/ref`, `git/refs`, `git/commits`, `git/trees`, `git/blobs`) and the contents API (a
 * commit on top of a branch) read and write it. The default branch `main` starts at MAIN_SHA
 * with a README.
 */

export type FakeFiles = ReadonlyArray<string | { readonly filename: string; readonly previous_filename: string }>;

export interface FakePull {
  readonly number: number;
  readonly branch: string;
  readonly sha: string;
  /** The files its head commit `sha` changes against main: a path (added), or a rename. */
  readonly files: FakeFiles;
  readonly checkRuns: ReadonlyArray<{ readonly name: string; readonly status: string; readonly conclusion: string | null }>;
  readonly statuses?: ReadonlyArray<{ readonly context: string; readonly state: string }>;
  /** The branch it merges into (`base.ref`); `main`, the default branch, unless set. */
  readonly base?: string;
  /** The repository of its head branch (`head.repo.full_name`): `acme/app` unless set (a fork's). */
  readonly headRepo?: string;
  open: boolean;
  merged: boolean;
  /** A merge refusal GitHub would answer with (405 not mergeable), instead of merging. */
  readonly refuseMerge?: { readonly status: number; readonly message: string };
}

export interface FakeGithubCall {
  readonly method: string;
  /** Path and query as requested. */
  readonly path: string;
  readonly body: Record<string, unknown>;
  readonly headers: Record<string, string | string[] | undefined>;
}

export interface FakeCommit {
  readonly tree: string;
  readonly parents: readonly string[];
  readonly message: string;
}

export interface FakeGithub {
  readonly url: string;
  readonly calls: FakeGithubCall[];
  readonly pulls: Map<number, FakePull>;
  /** The files of commits that are no pull's head (any more), by sha: e.g. a head before a force-push. */
  readonly commitFiles: Map<string, FakeFiles>;
  /** Called with each request before it is answered (a test can change the pulls meanwhile). */
  onRequest: ((call: FakeGithubCall) => void) | undefined;
  /** `refs/heads/<branch>` → commit sha. */
  readonly refs: Map<string, string>;
  readonly commits: Map<string, FakeCommit>;
  /** The files of a commit (path → text), or undefined for an unknown commit. */
  filesOf(commit: string): ReadonlyMap<string, string> | undefined;
  close(): Promise<void>;
}

export const FAKE_GITHUB_TOKEN = 'ghp_e2e';
/** The commit the default branch `main` starts at. */
export const MAIN_SHA = 'c0ffee0000000000000000000000000000000000';

const shaOf = (kind: string, value: unknown): string =>
  createHash('sha1')
    .update(`${kind}\0${JSON.stringify(value)}`)
    .digest('hex');

/** The merge commit the fake answers a merge of `pull` with (40 hex digits, as GitHub's). */
export const mergeCommitOf = (pull: Pick<FakePull, 'number' | 'sha'>): string => shaOf('merge', [pull.number, pull.sha]);

export const startFakeGithub = async (): Promise<FakeGithub> => {
  const calls: FakeGithubCall[] = [];
  const pulls = new Map<number, FakePull>();
  const commitFiles = new Map<string, FakeFiles>();
  const blobs = new Map<string, string>();
  /** Trees as flat maps of path → blob sha (GitHub nests them by directory; nothing here needs that). */
  const trees = new Map<string, ReadonlyMap<string, string>>();
  const commits = new Map<string, FakeCommit>();
  const refs = new Map<string, string>();
  const putBlob = (content: string): string => {
    const sha = shaOf('blob', content);
    blobs.set(sha, content);
    return sha;
  };
  const putTree = (entries: ReadonlyMap<string, string>): string => {
    const sha = shaOf(
      'tree',
      [...entries].sort(([a], [b]) => a.localeCompare(b)),
    );
    trees.set(sha, entries);
    return sha;
  };
  let made = 0;
  const putCommit = (commit: FakeCommit): string => {
    // Commits differ by their time: the same content committed twice is two commits.
    const sha = shaOf('commit', { ...commit, made: made++ });
    commits.set(sha, commit);
    return sha;
  };
  const mainTree = putTree(new Map([['README.md', putBlob('# app\n')]]));
  commits.set(MAIN_SHA, { tree: mainTree, parents: [], message: 'initial' });
  refs.set('refs/heads/main', MAIN_SHA);
  const treeAnswer = (sha: string) => ({
    sha,
    url: `https://api.github.com/repos/acme/app/git/trees/${sha}`,
    tree: [...(trees.get(sha) ?? [])].map(([path, blob]) => ({ path, mode: '100644', type: 'blob', sha: blob })),
    truncated: false,
  });
  const commitAnswer = (sha: string, commit: FakeCommit) => ({
    sha,
    url: `https://api.github.com/repos/acme/app/git/commits/${sha}`,
    message: commit.message,
    tree: { sha: commit.tree, url: `https://api.github.com/repos/acme/app/git/trees/${commit.tree}` },
    parents: commit.parents.map((parent) => ({ sha: parent })),
  });
  const filesOf = (commit: string): ReadonlyMap<string, string> | undefined => {
    const tree = trees.get(commits.get(commit)?.tree ?? '');
    return tree && new Map([...tree].map(([path, blob]) => [path, blobs.get(blob) ?? '']));
  };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '', 'http://github.test');
      const path = url.pathname;
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      const call = { method: req.method ?? '', path: req.url ?? '', body, headers: req.headers };
      calls.push(call);
      fake.onRequest?.(call);
      const json = (status: number, answer: unknown): void => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      if (req.headers.authorization !== `Bearer ${FAKE_GITHUB_TOKEN}`) return json(401, { message: 'Bad credentials' });
      if (!req.headers['user-agent'])
        return json(403, { message: 'Request forbidden by administrative rules. Please make sure your request has a User-Agent header' });
      const page = Number(url.searchParams.get('page') ?? '1');
      const perPage = Math.min(Number(url.searchParams.get('per_page') ?? '30'), 100);
      const pageOf = <T>(items: readonly T[]): T[] => items.slice((page - 1) * perPage, page * perPage);
      const bySha = (sha: string) => [...pulls.values()].find((pull) => pull.sha === sha);
      let match: RegExpExecArray | null;
      if (req.method === 'GET' && path === '/repos/acme/app') return json(200, { full_name: 'acme/app', default_branch: 'main' });
      if (req.method === 'GET' && (match = /^\/repos\/acme\/app\/git\/ref\/(heads\/.+)$/.exec(path))) {
        const ref = `refs/${decodeURIComponent(match[1])}`;
        const sha = refs.get(ref);
        return sha === undefined ? json(404, { message: 'Not Found' }) : json(200, { ref, object: { sha, type: 'commit' } });
      }
      if (req.method === 'POST' && path === '/repos/acme/app/git/refs') {
        const ref = String(body.ref ?? '');
        const sha = String(body.sha ?? '');
        if (!/^refs\/.+\/.+/.test(ref)) return json(422, { message: 'Reference name is invalid' });
        if (!commits.has(sha)) return json(422, { message: 'Object does not exist' });
        if (refs.has(ref)) return json(422, { message: 'Reference already exists' });
        refs.set(ref, sha);
        return json(201, { ref, url: `https://api.github.com/repos/acme/app/git/${ref}`, object: { sha, type: 'commit' } });
      }
      if (req.method === 'GET' && (match = /^\/repos\/acme\/app\/git\/commits\/([^/]+)$/.exec(path))) {
        const commit = commits.get(match[1]);
        return commit ? json(200, commitAnswer(match[1], commit)) : json(404, { message: 'Not Found' });
      }
      if (req.method === 'POST' && path === '/repos/acme/app/git/blobs') {
        if (typeof body.content !== 'string') return json(422, { message: 'Invalid request.\n\n"content" wasn\'t supplied.' });
        const sha = putBlob(body.encoding === 'base64' ? Buffer.from(body.content, 'base64').toString('utf8') : body.content);
        return json(201, { sha, url: `https://api.github.com/repos/acme/app/git/blobs/${sha}` });
      }
      if (req.method === 'POST' && path === '/repos/acme/app/git/trees') {
        const base = body.base_tree === undefined ? new Map<string, string>() : trees.get(String(body.base_tree));
        if (!base) return json(422, { message: 'Invalid tree info' });
        if (!Array.isArray(body.tree)) return json(422, { message: 'Invalid request.\n\n"tree" wasn\'t supplied.' });
        const entries = new Map(base);
        for (const entry of body.tree as Array<Record<string, unknown>>) {
          const entryPath = String(entry.path ?? '');
          if (entry.type !== 'blob' || entry.mode !== '100644' || entryPath === '') return json(422, { message: 'Invalid tree info' });
          if (typeof entry.content === 'string') entries.set(entryPath, putBlob(entry.content));
          else if (entry.sha === null) entries.delete(entryPath);
          else if (typeof entry.sha === 'string' && blobs.has(entry.sha)) entries.set(entryPath, entry.sha);
          else return json(422, { message: 'Invalid tree info' });
        }
        return json(201, treeAnswer(putTree(entries)));
      }
      if (req.method === 'POST' && path === '/repos/acme/app/git/commits') {
        const tree = String(body.tree ?? '');
        const parents = Array.isArray(body.parents) ? body.parents.map(String) : [];
        if (!trees.has(tree)) return json(422, { message: 'Tree SHA does not exist' });
        if (parents.some((parent) => !commits.has(parent))) return json(422, { message: 'Parent SHA does not exist or is not a commit object' });
        const commit = { tree, parents, message: String(body.message ?? '') };
        return json(201, commitAnswer(putCommit(commit), commit));
      }
      if (req.method === 'PUT' && (match = /^\/repos\/acme\/app\/contents\/(.+)$/.exec(path))) {
        // A commit on top of the branch (the default branch when none is named) changing one file.
        const file = decodeURIComponent(match[1]);
        const ref = `refs/heads/${String(body.branch ?? 'main')}`;
        const head = refs.get(ref);
        if (head === undefined) return json(404, { message: `Branch ${String(body.branch)} not found` });
        const entries = new Map(trees.get(commits.get(head)?.tree ?? '') ?? []);
        if (entries.has(file) && body.sha === undefined) return json(422, { message: 'Invalid request.\n\n"sha" wasn\'t supplied.' });
        if (entries.has(file) && body.sha !== entries.get(file)) return json(409, { message: `${file} does not match ${String(body.sha)}` });
        const blob = putBlob(Buffer.from(String(body.content ?? ''), 'base64').toString('utf8'));
        entries.set(file, blob);
        const commit = { tree: putTree(entries), parents: [head], message: String(body.message ?? '') };
        const sha = putCommit(commit);
        refs.set(ref, sha);
        return json(201, { content: { path: file, sha: blob }, commit: commitAnswer(sha, commit) });
      }
      if (req.method === 'GET' && /^\/repos\/acme\/app\/actions\/workflows\/[^/]+\/runs$/.test(path)) return json(200, { total_count: 0, workflow_runs: [] });
      if (req.method === 'GET' && path === '/repos/acme/app/pulls') {
        const head = url.searchParams.get('head');
        const state = url.searchParams.get('state') ?? 'open';
        const found = [...pulls.values()]
          // GitHub's head filter is `owner:branch`: a fork of another owner is left out, one of the same owner is not.
          .filter((pull) => head === null || `${(pull.headRepo ?? 'acme/app').split('/')[0]}:${pull.branch}` === head)
          .filter((pull) => state === 'all' || (state === 'open') === pull.open)
          .sort((a, b) => b.number - a.number);
        return json(
          200,
          pageOf(found).map((pull) => ({
            number: pull.number,
            html_url: `https://github.com/acme/app/pull/${pull.number}`,
            state: pull.open ? 'open' : 'closed',
            merged_at: pull.merged ? '2026-11-24T12:00:00Z' : null,
            head: { ref: pull.branch, sha: pull.sha, repo: { full_name: pull.headRepo ?? 'acme/app' } },
            base: { ref: pull.base ?? 'main' },
          })),
        );
      }
      if (req.method === 'GET' && (match = /^\/repos\/acme\/app\/pulls\/(\d+)$/.exec(path))) {
        const pull = pulls.get(Number(match[1]));
        if (!pull) return json(404, { message: 'Not Found' });
        return json(200, { number: pull.number, head: { ref: pull.branch, sha: pull.sha }, changed_files: pull.files.length });
      }
      if (req.method === 'GET' && (match = /^\/repos\/acme\/app\/pulls\/(\d+)\/files$/.exec(path))) {
        const pull = pulls.get(Number(match[1]));
        if (!pull) return json(404, { message: 'Not Found' });
        // GitHub lists at most 3000 files of a pull request, without saying so.
        return json(
          200,
          pageOf(pull.files.slice(0, 3000)).map((file) => (typeof file === 'string' ? { filename: file, status: 'added' } : { ...file, status: 'renamed' })),
        );
      }
      if (req.method === 'GET' && (match = /^\/repos\/acme\/app\/compare\/(.+)\.\.\.([^/.]+)$/.exec(path))) {
        // Only against main, of a commit whose files the test set. GitHub lists at most 300
        // changed files of a comparison (on its first page), without a total.
        const [base, head] = [decodeURIComponent(match[1]), decodeURIComponent(match[2])];
        const files = bySha(head)?.files ?? commitFiles.get(head);
        if (base !== 'main' || !files) return json(404, { message: 'Not Found' });
        return json(200, {
          url: `https://api.github.com/repos/acme/app/compare/${base}...${head}`,
          html_url: `https://github.com/acme/app/compare/${base}...${head}`,
          status: 'ahead',
          ahead_by: 1,
          behind_by: 0,
          total_commits: 1,
          base_commit: { sha: MAIN_SHA },
          merge_base_commit: { sha: MAIN_SHA },
          commits: [{ sha: head }],
          files: files
            .slice(0, 300)
            .map((file) =>
              typeof file === 'string'
                ? { filename: file, status: 'added' }
                : { filename: file.filename, status: 'renamed', previous_filename: file.previous_filename },
            ),
        });
      }
      if (req.method === 'GET' && (match = /^\/repos\/acme\/app\/commits\/([^/]+)\/check-runs$/.exec(path))) {
        const runs = bySha(decodeURIComponent(match[1]))?.checkRuns ?? [];
        return json(200, { total_count: runs.length, check_runs: pageOf(runs) });
      }
      if (req.method === 'GET' && (match = /^\/repos\/acme\/app\/commits\/([^/]+)\/status$/.exec(path))) {
        const statuses = bySha(decodeURIComponent(match[1]))?.statuses ?? [];
        const state = statuses.some((s) => s.state === 'failure' || s.state === 'error')
          ? 'failure'
          : statuses.length === 0 || statuses.some((s) => s.state === 'pending')
            ? 'pending'
            : 'success';
        return json(200, { state, total_count: statuses.length, statuses: pageOf(statuses) });
      }
      if (req.method === 'PUT' && (match = /^\/repos\/acme\/app\/pulls\/(\d+)\/merge$/.exec(path))) {
        const pull = pulls.get(Number(match[1]));
        if (!pull) return json(404, { message: 'Not Found' });
        if (pull.refuseMerge) return json(pull.refuseMerge.status, { message: pull.refuseMerge.message });
        if (!pull.open) return json(405, { message: 'Pull Request is not mergeable' });
        if (body.sha !== undefined && body.sha !== pull.sha) return json(409, { message: 'Head branch was modified. Review and try the merge again.' });
        pull.merged = true;
        pull.open = false;
        return json(200, { sha: mergeCommitOf(pull), merged: true, message: 'Pull Request successfully merged' });
      }
      json(404, { message: 'Not Found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const fake: FakeGithub = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    pulls,
    commitFiles,
    onRequest: undefined,
    refs,
    commits,
    filesOf,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return fake;
};
