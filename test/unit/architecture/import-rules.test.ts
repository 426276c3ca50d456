import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The hexagon's import rules, checked on every test run:
 * the domain depends on nothing but itself, ports and use cases only inward,
 * adapters never on each other, and no module cycles anywhere.
 */
const SRC = resolve(import.meta.dirname, '..', '..', '..', 'src');

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );

const IMPORT = /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g;

interface Module {
  readonly path: string; // relative to src, e.g. domain/auth/api-key-format.ts
  readonly source: string;
  readonly imports: string[]; // relative-to-src paths for local modules, bare specifiers otherwise
}

const modules: Module[] = files(SRC).map((file) => {
  const source = readFileSync(file, 'utf8');
  const imports = [...source.matchAll(IMPORT)].map((m) => {
    const specifier = m[1] ?? m[2] ?? m[3];
    return specifier.startsWith('.') ? relative(SRC, resolve(dirname(file), specifier)).replace(/\.js$/, '.ts') : specifier;
  });
  return { path: relative(SRC, file), source, imports };
});

const layer = (path: string): string => path.split('/')[0];

/** The source with its comments blanked (line breaks kept); strings, template literals and regular expressions stay. */
const withoutComments = (source: string): string => {
  let out = '';
  for (let i = 0; i < source.length; ) {
    const c = source[i];
    if (c === '/' && source[i + 1] === '/') {
      while (i < source.length && source[i] !== '\n') i++;
    } else if (c === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2);
      const stop = end === -1 ? source.length : end + 2;
      out += source.slice(i, stop).replace(/[^\n]/g, '');
      i = stop;
    } else if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      while (j < source.length && source[j] !== c) j += source[j] === '\\' ? 2 : 1;
      out += source.slice(i, j + 1);
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
};
const isLocal = (specifier: string): boolean => specifier.endsWith('.ts');

describe('import rules', () => {
  it('finds the source tree', () => {
    expect(modules.filter((m) => layer(m.path) === 'domain')).not.to.be.empty;
  });

  it('keeps the domain free of everything but itself: no packages, no Node built-ins, no environment, clock or randomness', () => {
    const offences = modules
      .filter((m) => layer(m.path) === 'domain')
      .flatMap((m) => [
        ...m.imports.filter((i) => !isLocal(i) || layer(i) !== 'domain').map((i) => `${m.path} imports ${i}`),
        ...[/process\.env/, /Date\.now\(/, /new Date\(\)/, /Math\.random\(/].filter((p) => p.test(m.source)).map((p) => `${m.path} uses ${p.source}`),
      ]);
    expect(offences).to.deep.equal([]);
  });

  it('lets ports depend only on the domain and other ports', () => {
    const offences = modules
      .filter((m) => layer(m.path) === 'ports')
      .flatMap((m) => m.imports.filter((i) => !isLocal(i) || !['domain', 'ports'].includes(layer(i))).map((i) => `${m.path} imports ${i}`));
    expect(offences).to.deep.equal([]);
  });

  it('lets use cases depend only on the domain, ports and other use cases', () => {
    const offences = modules
      .filter((m) => layer(m.path) === 'application')
      .flatMap((m) => m.imports.filter((i) => !isLocal(i) || !['domain', 'ports', 'application'].includes(layer(i))).map((i) => `${m.path} imports ${i}`));
    expect(offences).to.deep.equal([]);
  });

  it('keeps ports and use cases from reading the environment: what they need comes in through settings', () => {
    const offences = modules.filter((m) => ['ports', 'application'].includes(layer(m.path)) && /process\.env/.test(m.source)).map((m) => m.path);
    expect(offences).to.deep.equal([]);
  });

  it('keeps adapters from importing each other; adapters/shared holds helpers any adapter may use, and imports no adapter', () => {
    const kind = (path: string): string => path.split('/')[1];
    const offences = modules
      .filter((m) => layer(m.path) === 'adapters')
      .flatMap((m) =>
        m.imports.filter((i) => isLocal(i) && layer(i) === 'adapters' && kind(i) !== kind(m.path) && kind(i) !== 'shared').map((i) => `${m.path} imports ${i}`),
      );
    expect(offences).to.deep.equal([]);
    expect(modules.filter((m) => layer(m.path) === 'adapters' && kind(m.path) === 'shared').map((m) => m.path)).to.include('adapters/shared/group-commit.ts');
  });

  it('keeps the inner layers from reaching the container or the CLI', () => {
    const offences = modules
      .filter((m) => ['domain', 'ports', 'application', 'adapters'].includes(layer(m.path)))
      .flatMap((m) => m.imports.filter((i) => isLocal(i) && ['container', 'cli'].includes(layer(i))).map((i) => `${m.path} imports ${i}`));
    expect(offences).to.deep.equal([]);
  });

  it('keeps the domain and the use cases free of any chat platform: no identifier or string names one', () => {
    const platforms = /telegram|slack/i;
    const offences = modules
      .filter((m) => ['domain', 'application'].includes(layer(m.path)))
      .flatMap((m) =>
        withoutComments(m.source)
          .split('\n')
          .map((line, i) => [m.path, i + 1, line] as const),
      )
      .filter(([, , line]) => platforms.test(line))
      .map(([path, number, line]) => `${path}:${number}: ${line.trim()}`);
    expect(offences).to.deep.equal([]);
  });

  it('finds a platform name in code, not in comments (the check above can fail)', () => {
    const source = "// Telegram\n/* Slack */ const url = 'https://x'; // slack\nconst a = 'telegram';\nconst slackId = `x`;";
    expect(
      withoutComments(source)
        .split('\n')
        .filter((line) => /telegram|slack/i.test(line)),
    ).to.deep.equal(["const a = 'telegram';", 'const slackId = `x`;']);
  });

  it('has no circular imports', () => {
    const graph = new Map(modules.map((m) => [m.path, m.imports.filter(isLocal)]));
    const cycles: string[] = [];
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (node: string, stack: string[]): void => {
      if (state.get(node) === 'done') return;
      if (state.get(node) === 'visiting') {
        cycles.push([...stack.slice(stack.indexOf(node)), node].join(' -> '));
        return;
      }
      state.set(node, 'visiting');
      for (const next of graph.get(node) ?? []) visit(next, [...stack, node]);
      state.set(node, 'done');
    };
    for (const node of graph.keys()) visit(node, []);
    expect(cycles).to.deep.equal([]);
  });
});
