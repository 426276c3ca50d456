import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
// @ts-expect-error src/build.mjs is plain JavaScript (it runs before anything is compiled)
import { importGraph, loadOrder } from '../../../src/build.mjs';
import { loadInSteps } from '../../../src/cli/load-in-steps.js';
import { ROOT, tempDir } from '../../support/gateway-process.js';

type Graph = Map<string, string[]>;
const order = loadOrder as (graph: Graph, entry: string) => string[];
const graphOf = importGraph as (ours: unknown, bundles: unknown, vendorFiles: Record<string, string>) => Graph;

describe('the service start loads its modules a step at a time (src/build.mjs loadOrder, src/cli/load-in-steps.ts)', () => {
  describe('loadOrder: the order Node evaluates the modules of an entry', () => {
    it('puts each module after everything it imports, imports in source order, the entry last, each once (cycles included)', () => {
      const graph: Graph = new Map([
        ['dist/cli/serve.js', ['dist/a.js', 'dist/b.js', 'pkg:koa']],
        ['dist/a.js', ['dist/c.js', 'dist/vendor/x.js']],
        ['dist/b.js', ['dist/c.js', 'dist/a.js']],
        ['dist/c.js', ['dist/b.js']],
        ['dist/vendor/x.js', ['dist/vendor/chunk-1.js', 'pkg:pg']],
      ]);
      expect(order(graph, 'dist/cli/serve.js')).to.deep.equal([
        'b.js',
        'c.js',
        'vendor/chunk-1.js',
        'pkg:pg',
        'vendor/x.js',
        'a.js',
        'pkg:koa',
        'cli/serve.js',
      ]);
    });

    it("reads esbuild's metafiles: static imports only, bundled packages to their dist/vendor file, Node's modules left out", () => {
      const ours = {
        inputs: {
          'dist/cli/serve.js': {
            imports: [
              { path: 'dist/container/gateway.js', kind: 'import-statement' },
              { path: 'dist/lazy.js', kind: 'dynamic-import' },
              { path: 'node:fs', kind: 'import-statement', external: true },
              { path: 'path', kind: 'import-statement', external: true },
            ],
          },
          'dist/container/gateway.js': {
            imports: [
              { path: 'inversify', kind: 'import-statement', external: true },
              { path: 'koa', kind: 'import-statement', external: true },
            ],
          },
          'dist/lazy.js': { imports: [] },
        },
      };
      const bundles = {
        outputs: {
          'dist/vendor/inversify.js': {
            imports: [
              { path: 'dist/vendor/chunk-A.js', kind: 'import-statement' },
              { path: 'node:module', kind: 'import-statement', external: true },
            ],
          },
          'dist/vendor/inversify.js.map': { imports: [] },
          'dist/vendor/chunk-A.js': { imports: [{ path: 'reflect-metadata', kind: 'require-call', external: true }] },
        },
      };
      const graph = graphOf(ours, bundles, { inversify: 'inversify.js' });
      expect(order(graph, 'dist/cli/serve.js')).to.deep.equal(['vendor/chunk-A.js', 'vendor/inversify.js', 'pkg:koa', 'container/gateway.js', 'cli/serve.js']);
    });

    it("the build's list (dist/load-steps.json) names files that exist, the bundles before the modules that import them, serve.js last", () => {
      const steps = JSON.parse(readFileSync(join(ROOT, 'dist', 'load-steps.json'), 'utf8')) as string[];
      expect(steps.at(-1)).to.equal('cli/serve.js');
      for (const step of steps) if (!step.startsWith('pkg:')) expect(existsSync(join(ROOT, 'dist', step)), step).to.equal(true);
      expect(steps.indexOf('vendor/inversify.js')).to.be.within(0, steps.indexOf('container/build-container.js'));
      expect(steps.indexOf('container/gateway.js')).to.be.within(0, steps.indexOf('cli/serve.js'));
    });
  });

  describe('loadInSteps', () => {
    const list = async (steps: unknown): Promise<URL> => {
      const file = join(await tempDir('load-steps'), 'load-steps.json');
      await writeFile(file, typeof steps === 'string' ? steps : JSON.stringify(steps));
      return pathToFileURL(file);
    };
    const base = new URL('file:///srv/dist/');

    it('loads each step in order, giving the event loop a turn after each: work queued meanwhile runs in between', async () => {
      const events: string[] = [];
      const loaded = await loadInSteps(await list(['a.js', 'vendor/b.js', 'pkg:koa']), base, async (specifier) => {
        events.push(specifier);
        // A request arriving while this step loads: answered before the next step, not after the last.
        setImmediate(() => events.push(`answered after ${specifier}`));
      });
      expect(loaded).to.equal(3);
      expect(events).to.deep.equal([
        'file:///srv/dist/a.js',
        'answered after file:///srv/dist/a.js',
        'file:///srv/dist/vendor/b.js',
        'answered after file:///srv/dist/vendor/b.js',
        'koa',
        'answered after koa',
      ]);
    });

    it('stops at the first step that fails to load, without throwing (the import of serve.js that follows fails as it would)', async () => {
      const tried: string[] = [];
      const loaded = await loadInSteps(await list(['a.js', 'gone.js', 'c.js']), base, async (specifier) => {
        tried.push(specifier);
        if (specifier.endsWith('gone.js')) throw new Error('Cannot find module');
      });
      expect(loaded).to.equal(1);
      expect(tried).to.deep.equal(['file:///srv/dist/a.js', 'file:///srv/dist/gone.js']);
    });

    it('loads nothing from a list that is missing, not JSON or not a list of strings', async () => {
      const none = async (): Promise<never> => {
        throw new Error('nothing is to be loaded');
      };
      expect(await loadInSteps(new URL('file:///nowhere/load-steps.json'), base, none)).to.equal(0);
      expect(await loadInSteps(await list('{not json'), base, none)).to.equal(0);
      expect(await loadInSteps(await list({ steps: ['a.js'] }), base, none)).to.equal(0);
      expect(await loadInSteps(await list([42]), base, none)).to.equal(0);
    });
  });
});
