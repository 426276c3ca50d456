import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback fake of the GitHub REST API (version 2022-11-28) for repository `acme/app` and
 * token `ghp_e2e`: what the job runner and auto-merge call. Pull requests, their files, and
 * their head commits' check runs and statuses are set by the test (`pulls`); list endpoints
 * paginate with `per_page` and `page` as GitHub does.
 */

export interface FakePull {
  readonly number: number;
  readonly branch: string;
  readonly sha: string;
  readonly files: ReadonlyArray<string | { readonly filename: string; readonly previous_filename: string }>;
  readonly checkRuns: ReadonlyArray<{ readonly name: string; readonly status: string; readonly conclusion: string | null }>;
  readonly statuses?: ReadonlyArray<{ readonly context: string; readonly state: string }>;
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

export interface FakeGithub {
  readonly url: string;
  readonly calls: FakeGithubCall[];
  readonly pulls: Map<number, FakePull>;
  close(): Promise<void>;
}

export const FAKE_GITHUB_TOKEN = 'ghp_e2e';

export const startFakeGithub = async (): Promise<FakeGithub> => {
  const calls: FakeGithubCall[] = [];
  const pulls = new Map<number, FakePull>();
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '', 'http://github.test');
      const path = url.pathname;
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      calls.push({ method: req.method ?? '', path: req.url ?? '', body, headers: req.headers });
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
      if (req.method === 'GET' && path === '/repos/acme/app/git/ref/heads/main')
        return json(200, { ref: 'refs/heads/main', object: { sha: 'c0ffee', type: 'commit' } });
      if (req.method === 'POST' && path === '/repos/acme/app/git/refs') return json(201, { ref: body.ref, object: { sha: 'c0ffee' } });
      if (req.method === 'PUT' && path.startsWith('/repos/acme/app/contents/logs/')) return json(201, { content: { path }, commit: { sha: 'beef' } });
      if (req.method === 'GET' && /^\/repos\/acme\/app\/actions\/workflows\/[^/]+\/runs$/.test(path)) return json(200, { total_count: 0, workflow_runs: [] });
      if (req.method === 'GET' && path === '/repos/acme/app/pulls') {
        const head = url.searchParams.get('head');
        const state = url.searchParams.get('state') ?? 'open';
        const found = [...pulls.values()]
          .filter((pull) => head === null || `acme:${pull.branch}` === head)
          .filter((pull) => state === 'all' || (state === 'open') === pull.open)
          .sort((a, b) => b.number - a.number);
        return json(
          200,
          pageOf(found).map((pull) => ({
            number: pull.number,
            html_url: `https://github.com/acme/app/pull/${pull.number}`,
            state: pull.open ? 'open' : 'closed',
            merged_at: pull.merged ? '2026-11-24T12:00:00Z' : null,
            head: { ref: pull.branch, sha: pull.sha },
            base: { ref: 'main' },
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
        return json(200, { sha: 'm3rg3d', merged: true, message: 'Pull Request successfully merged' });
      }
      json(404, { message: 'Not Found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    pulls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
