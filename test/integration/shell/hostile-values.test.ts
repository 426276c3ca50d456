import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ChildProcessShellExecutor } from '../../../src/adapters/shell/child-process-shell-executor.js';
import { DEFAULT_SHELL_SETTINGS } from '../../../src/adapters/shell/spawn-shell.js';
import { snapshotRequest, type RequestSnapshot } from '../../../src/domain/templates/request-snapshot.js';
import { renderCommand } from '../../../src/domain/templates/render-command.js';
import { validateTriggers } from '../../../src/domain/triggers/validate-triggers.js';
import { tempDir } from '../../support/gateway-process.js';
import { triggerCatalog } from '../../../src/container/trigger-catalog.js';

/*
 * Hostile request values through command templates that use every shell construct a template
 * may hold, run by a real /bin/sh (and by bash, which is /bin/sh on many systems): nothing a
 * value holds ever runs (no canary file appears), and each value arrives byte for byte.
 */

const HOSTILE = [
  '$(touch canary-1)',
  '`touch canary-2`',
  "'; touch canary-3; '",
  '"; touch canary-4; "',
  '\\',
  '\\\\"',
  "\\'",
  'a\ntouch canary-5',
  'EOF\ntouch canary-6\nEOF',
  '\tEOF\ntouch canary-7',
  'x # y\ntouch canary-8',
  '; touch canary-9',
  '| touch canary-10',
  '&& touch canary-11 &',
  '*',
  '.* /* ?',
  '-n',
  '--help',
  '-e \\n',
  'a[$(touch canary-12)]',
  '$((1+1)) ${HOME} $PATH $0 $$ $1',
  '${x:=$(touch canary-13)}',
  '<<EOF',
  '})\'"`]]))',
  'ünïcödé 中文 עברית',
  'emoji 🎉👍🏽 family 👨‍👩‍👧',
  '  leading and trailing  \t',
  'trailing newline\n',
  '\r\n\u0001\u007f',
  '',
];

/** One line (or block) of the template per construct: the file it writes, and what the file must hold. */
const CONSTRUCTS: Array<{ file: string; template: string; expected: (v: string) => string; bashOnly?: boolean }> = [
  { file: 'unquoted', template: "printf '%s' {{body.v}} > unquoted", expected: (v) => v },
  { file: 'single', template: "printf '%s' '<{{body.v}}>' > single", expected: (v) => `<${v}>` },
  { file: 'double', template: `printf '%s' "<{{body.v}}>" > double`, expected: (v) => `<${v}>` },
  { file: 'adjacent', template: "printf '%s' 'a'{{body.v}}\"b\" > adjacent", expected: (v) => `a${v}b` },
  { file: 'query', template: "printf '%s' {{query.v}} > query", expected: (v) => v },
  { file: 'header', template: `printf '%s' "{{headers.x-v}}" > header`, expected: (v) => v },
  { file: 'substitution', template: `printf '%s' "$(printf '%s' "<{{body.v}}>")" > substitution`, expected: (v) => `<${v}>` },
  { file: 'substitution2', template: `printf '%s' "$(printf '%s' '<'{{body.v}}'>')" > substitution2`, expected: (v) => `<${v}>` },
  { file: 'backticks', template: "x=`printf '%s' '<{{body.v}}>'`; printf '%s' \"$x\" > backticks", expected: (v) => `<${v}>` },
  { file: 'backticks2', template: `printf '%s' "\`printf '%s' "<{{body.v}}>"\`" > backticks2`, expected: (v) => `<${v}>` },
  { file: 'heredoc', template: 'cat > heredoc <<EOF\n<{{body.v}}>\nEOF', expected: (v) => `<${v}>\n` },
  { file: 'heredoc2', template: 'cat > heredoc2 <<-EOF\n\t<{{body.v}}> "{{query.v}}"\n\tEOF', expected: (v) => `<${v}> "${v}"\n` },
  { file: 'heredoc3', template: `cat > heredoc3 <<EOF\n$(printf '%s' "<{{body.v}}>")\nEOF`, expected: (v) => `<${v}>\n` },
  { file: 'pipe', template: "printf '%s' {{body.v}} | cat > pipe && printf '%s' {{query.v}} > pipe2 || exit 3", expected: (v) => v },
  { file: 'subshell', template: `(printf '%s' "<{{body.v}}>") > subshell`, expected: (v) => `<${v}>` },
  { file: 'arithmetic', template: `n=$((2 * 3)); printf '%s' "$n{{body.v}}" > arithmetic`, expected: (v) => `6${v}` },
  { file: 'default', template: "printf '%s' ${unset_var:-{{body.v}}} > default", expected: (v) => v },
  { file: 'default2', template: `printf '%s' "\${unset_var:-<{{body.v}}>}" > default2`, expected: (v) => `<${v}>` },
  { file: 'comment', template: "# a comment, 'unbalanced\nprintf '%s' {{body.v}} > comment # and a comment", expected: (v) => v },
  { file: 'case', template: "case {{body.v}} in *) printf '%s' {{body.v}} > case;; esac", expected: (v) => v },
  { file: 'set', template: `set -- {{body.v}}; printf '%s' "$1" > set`, expected: (v) => v },
  { file: 'assignment', template: `x={{body.v}}; printf '%s' "$x" > assignment`, expected: (v) => v },
  { file: 'seed', template: `RANDOM_SEED={{body.v}} MY_OPTIND={{body.v}}; printf '%s' "$RANDOM_SEED" > seed`, expected: (v) => v },
  { file: 'export', template: `export X={{body.v}}; printf '%s' "$X" > export`, expected: (v) => v },
  { file: 'local', template: `f() { local y="{{body.v}}"; printf '%s' "$y" > local; }; f`, expected: (v) => v },
  { file: 'plainint', template: 'printf \'%s\' SECONDS={{body.v}} RANDOM="{{body.v}}" > plainint', expected: (v) => `SECONDS=${v}RANDOM=${v}` },
  {
    file: 'exportq',
    template: `export "QX={{body.v}}" 'QY'={{body.v}}; readonly QZ={{body.v}}; printf '%s' "$QX$QY$QZ" > exportq`,
    expected: (v) => v + v + v,
  },
  { file: 'exportn', template: `export -n NX={{body.v}}; printf '%s' "$NX" > exportn`, expected: (v) => v, bashOnly: true },
  { file: 'read', template: `printf 'a b\n' | { read -r -p {{body.v}} ra rb; printf '%s' "$rb" > read; }`, expected: () => 'b' },
  { file: 'getopts', template: "getopts {{body.v}} go_opt -x {{body.v}} 2>/dev/null; printf '%s' -v {{body.v}} > getopts", expected: (v) => `-v${v}` },
  { file: 'testv', template: 'if [ -n {{body.v}} ] || [ {{body.v}} = -v ]; then :; fi; printf ok > testv', expected: () => 'ok' },
  { file: 'test', template: `if [ "{{body.v}}" = "{{query.v}}" ]; then printf same > test; fi`, expected: () => 'same' },
  { file: 'herestring', template: 'cat <<< {{body.v}} > herestring', expected: (v) => `${v}\n`, bashOnly: true },
  { file: 'herestring2', template: `cat <<< "<{{body.v}}>" > herestring2`, expected: (v) => `<${v}>\n`, bashOnly: true },
];

const requestWith = (value: string): RequestSnapshot => snapshotRequest({ v: value }, { v: value }, { 'X-V': value });

const SHELLS = [
  ['/bin/sh', '/bin/sh'],
  ['bash', '/usr/bin/bash'],
] as const;
type ShellName = (typeof SHELLS)[number][0];

const onPath = (name: string): boolean => (process.env.PATH ?? '').split(':').some((dir) => dir !== '' && existsSync(join(dir, name)));

/** A template with a token where a program runs the value, and the same command reading the value from AGW_ARG_1. */
interface RunsTheValue {
  template: string;
  script: string;
  /** The value; a function of the test's directory where it names a file there. */
  value: string | ((cwd: string) => string);
  /** Variables the case adds to the run's environment. */
  env?: Record<string, string>;
  /** Writes what the run needs into the test's directory. */
  prepare?: (cwd: string) => Promise<void>;
  /** The shells that run the case: both unless given. */
  shells?: ReadonlyArray<ShellName>;
}

/**
 * One test per shell (/bin/sh, bash) and case: `script`, run in a fresh directory with AGW_ARG_1
 * set to the value, creates the file `canary` there (the value ran), and the template is refused.
 * Where the shell or a program the case needs is missing, the test is pending and says why. The
 * title reads `"<template>" <does> under <shell>, so the template is refused`.
 */
function itRunsTheValueAsCode<C extends RunsTheValue>(
  cases: ReadonlyArray<C>,
  options: {
    /** What the title says the command does with the value. */
    does: (c: C) => string;
    /** Whether the programs the case needs are here (the shell aside): all are unless given. */
    available?: (c: C) => boolean;
    /** Why the test is pending, when the shell or a program is missing. */
    pending: (c: C, shellName: ShellName) => string;
    /** The prefix of the test's directory. */
    tempDir: string;
    /** The run's environment besides the case's env and AGW_ARG_1: PATH alone unless given. */
    env?: (cwd: string) => Record<string, string>;
    timeoutMs?: number;
  },
): void {
  for (const [shellName, shellPath] of SHELLS) {
    for (const c of cases.filter(({ shells }) => shells?.includes(shellName) ?? true)) {
      const runs = existsSync(shellPath) && (options.available?.(c) ?? true);
      (runs ? it : it.skip)(
        `${JSON.stringify(c.template)} ${options.does(c)} under ${shellName}, so the template is refused${runs ? '' : ` — pending: ${options.pending(c, shellName)}`}`,
        async () => {
          const cwd = await tempDir(options.tempDir);
          await c.prepare?.(cwd);
          const value = typeof c.value === 'string' ? c.value : c.value(cwd);
          const shell = new ChildProcessShellExecutor({ ...DEFAULT_SHELL_SETTINGS, shell: shellPath });
          const env = { ...(options.env?.(cwd) ?? { PATH: process.env.PATH ?? '' }), ...c.env, AGW_ARG_1: value };
          const run = await shell.run(c.script, { cwd, timeoutMs: options.timeoutMs ?? 10_000, env });
          expect(existsSync(join(cwd, 'canary')), `${c.script}\n${run.output}`).to.equal(true);
          expect(() => renderCommand(c.template, requestWith(value))).to.throw(/\{\{body\.v\}\} stands /);
        },
      );
    }
  }
}

const notInstalled = ({ tool }: { tool: string }, shellName: ShellName): string => `${tool} not installed (or no ${shellName})`;

for (const [shellName, shellPath] of SHELLS) {
  const describeShell = existsSync(shellPath) ? describe : describe.skip;
  describeShell(`hostile values through command templates, run by ${shellName}`, function () {
    this.timeout(60_000);
    const shell = new ChildProcessShellExecutor({ ...DEFAULT_SHELL_SETTINGS, shell: shellPath });
    const constructs = CONSTRUCTS.filter((c) => shellName === 'bash' || !c.bashOnly);
    const template = constructs.map((c) => c.template).join('\n');

    it('the template is valid: no token stands where no value may', () => {
      const { problems } = validateTriggers(
        [{ name: 't', watch_path: '/webhook', enabled: true, actions: [{ type: 'command', command: template }] }],
        'test',
        triggerCatalog(),
      );
      expect(problems).to.deep.equal([]);
    });

    for (const [i, value] of HOSTILE.entries()) {
      it(`value #${i} ${JSON.stringify(value)} runs nothing and arrives byte for byte in every construct`, async () => {
        const cwd = await tempDir('hostile');
        const rendered = renderCommand(template, requestWith(value));
        const run = await shell.run(rendered.script, { cwd, timeoutMs: 10_000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...rendered.env } });
        expect(run.exitCode, run.output).to.equal(0);
        const arrived: Record<string, string> = {};
        const expected: Record<string, string> = {};
        for (const construct of constructs) {
          arrived[construct.file] = await readFile(join(cwd, construct.file), 'utf8').catch(() => '(missing)');
          expected[construct.file] = construct.expected(value);
        }
        expect(arrived).to.deep.equal(expected);
        expect(
          (await readdir(cwd)).filter((name) => name.includes('canary')),
          'files created by a value',
        ).to.deep.equal([]);
      });
    }
  });
}

describe('why arithmetic and [[ ]] are refused: bash evaluates an expanded value there', () => {
  const bash = existsSync('/usr/bin/bash') ? it : it.skip;
  bash(
    `a value in [[ … -eq … ]] runs a command even from a variable, so templates may not put tokens there${existsSync('/usr/bin/bash') ? '' : ' — pending: no bash here'}`,
    async () => {
      const cwd = await tempDir('arith');
      const shell = new ChildProcessShellExecutor({ ...DEFAULT_SHELL_SETTINGS, shell: '/usr/bin/bash' });
      await shell.run('[[ "$AGW_ARG_1" -eq 1 ]]; echo $(( AGW_ARG_1 ))', {
        cwd,
        timeoutMs: 5000,
        env: { PATH: process.env.PATH ?? '', AGW_ARG_1: 'a[$(touch canary)]' },
      });
      expect(existsSync(join(cwd, 'canary'))).to.equal(true);
      expect(() => renderCommand('[[ {{body.v}} -eq 1 ]]', requestWith('1'))).to.throw(/stands inside \[\[ … \]\]/);
    },
  );
});

/*
 * What bash evaluates even from an expanded variable, where /bin/sh is bash (run here in POSIX
 * mode, as /bin/sh runs): each form runs the command in the value, and the template is refused.
 */
describe('why integer variables, declaration names, namerefs and compgen -W are refused: bash evaluates the value there', () => {
  const bash = existsSync('/usr/bin/bash') ? it : it.skip;
  const evaluating: Array<[string, string]> = [
    ['RANDOM={{body.v}}', 'a[$(touch canary)]'],
    ['SRANDOM={{body.v}}', 'a[$(touch canary)]'],
    ['OPTIND={{body.v}} :', 'a[$(touch canary)]'],
    ['export HISTCMD={{body.v}}', 'a[$(touch canary)]'],
    ['declare SECONDS={{body.v}}', 'a[$(touch canary)]'],
    ['f() { local -i n={{body.v}}; }; f', 'a[$(touch canary)]'],
    ['declare -n r={{body.v}}; echo "$r"', 'a[$(touch canary)]'],
    ['declare {{body.v}}=1', 'a[$(touch canary)]'],
    ['export {{body.v}}', 'OPTIND=a[$(touch canary)]'],
    ['compgen -W {{body.v}}', '$(touch canary)'],
    ['a=(1); unset {{body.v}}', 'a[$(touch canary)]'],
    ["a=(1); 'unset' -v {{body.v}}", 'a[$(touch canary)]'],
    ['printf -v {{body.v}} %s x', 'a[$(touch canary)]'],
    ['printf -v{{body.v}} %s x', 'a[$(touch canary)]'],
    ['a=(1); read {{body.v}} < /dev/null', 'a[$(touch canary)]'],
    ['a=(1); read -r x {{body.v}} < /dev/null', 'a[$(touch canary)]'],
    ['sleep 0 & wait -n -p {{body.v}}', 'a[$(touch canary)]'],
    ['[ -v {{body.v}} ]', 'a[$(touch canary)]'],
    ['test ! -v {{body.v}}', 'a[$(touch canary)]'],
    ['mapfile -C {{body.v}} -c 1 x <<< a', 'touch canary;:'],
    ['typeset {{body.v}}=1', 'a[$(touch canary)]'],
    ['\\export {{body.v}}', 'OPTIND=a[$(touch canary)]'],
    ['"export" {{body.v}}', 'OPTIND=a[$(touch canary)]'],
    ["ex''port {{body.v}}", 'OPTIND=a[$(touch canary)]'],
    ['coproc export {{body.v}}; wait', 'OPTIND=a[$(touch canary)]'],
    // In POSIX mode bash reads time -p as the time utility; outside it, as the reserved word.
    ['set +o posix\ntime -p export {{body.v}}', 'OPTIND=a[$(touch canary)]'],
    ['export -n OPTIND={{body.v}}', 'a[$(touch canary)]'],
    ["export 'OPTIND'={{body.v}}", 'a[$(touch canary)]'],
    ['declare -a x={{body.v}}', '($(touch canary))'],
    ['export -a x={{body.v}}', '([$(touch canary)]=1)'],
    ['f() { local -A m={{body.v}}; }; f', '([$(touch canary)]=1)'],
  ];
  for (const [template, value] of evaluating) {
    bash(
      `${template} runs the command in ${JSON.stringify(value)}, so the template is refused${existsSync('/usr/bin/bash') ? '' : ' — pending: no bash here'}`,
      async () => {
        const cwd = await tempDir('evaluating');
        const shell = new ChildProcessShellExecutor({ ...DEFAULT_SHELL_SETTINGS, shell: '/usr/bin/bash' });
        const script = `set -o posix\n${template.replace('{{body.v}}', '"${AGW_ARG_1}"')}`;
        await shell.run(script, { cwd, timeoutMs: 5000, env: { PATH: process.env.PATH ?? '', AGW_ARG_1: value } });
        expect(existsSync(join(cwd, 'canary')), script).to.equal(true);
        expect(() => renderCommand(template, requestWith(value))).to.throw(/\{\{body\.v\}\} stands /);
      },
    );
  }
});

/*
 * What a shell started from the script runs of a variable's value: bash expands BASH_ENV (and an
 * interactive sh ENV) and sources the file it names, at the start of every script; prompts are
 * expanded, PROMPT_COMMAND and a trap's action run, an exported BASH_FUNC_ defines a function.
 * Each form runs the command in the value, and the template is refused.
 */
describe('why assignments to BASH_ENV, ENV, prompts, PROMPT_COMMAND, env BASH_FUNC_… and trap actions are refused: a shell runs the value', () => {
  const bash = existsSync('/usr/bin/bash') ? it : it.skip;
  const running: Array<[string, string]> = [
    // The review's case: a bash script started with BASH_ENV from a request value.
    ["printf '#!/bin/bash\\necho deployed\\n' > deploy.sh; chmod +x deploy.sh; BASH_ENV={{body.v}} ./deploy.sh", '$(touch canary)'],
    ['export BASH_ENV={{body.v}}; bash -c :', '$(touch canary)'],
    ['env BASH_ENV={{body.v}} bash -c :', '$(touch canary)'],
    ['ENV={{body.v}} sh -i -c :', '$(touch canary)'],
    ['PS4={{body.v}}; set -x; :', '$(touch canary)'],
    ['PS1={{body.v}} bash --norc -i < /dev/null', '$(touch canary)'],
    ['PROMPT_COMMAND={{body.v}} bash --norc -i < /dev/null', 'touch canary'],
    ['env BASH_FUNC_true%%={{body.v}} bash -c true', '() { touch canary; }'],
    ['trap {{body.v}} EXIT', 'touch canary'],
    ["trap 'echo '{{body.v}} EXIT", '$(touch canary)'],
  ];
  for (const [template, value] of running) {
    bash(
      `${template} runs the command in ${JSON.stringify(value)}, so the template is refused${existsSync('/usr/bin/bash') ? '' : ' — pending: no bash here'}`,
      async () => {
        const cwd = await tempDir('running');
        const shell = new ChildProcessShellExecutor({ ...DEFAULT_SHELL_SETTINGS, shell: '/usr/bin/bash' });
        const script = `set -o posix\n${template.replace('{{body.v}}', '"${AGW_ARG_1}"')}`;
        await shell.run(script, { cwd, timeoutMs: 5000, env: { PATH: process.env.PATH ?? '', AGW_ARG_1: value } });
        expect(existsSync(join(cwd, 'canary')), script).to.equal(true);
        expect(() => renderCommand(template, requestWith(value))).to.throw(/\{\{body\.v\}\} stands /);
      },
    );
  }
});

/*
 * Programs that run a value as code although no shell parses it in the template: ssh (its
 * destination read as an option), rsync (an operand read as its -e option), flock -c, script -c,
 * GNU sed's e command, and a shell reached through a function. Each runs the command in the
 * value under /bin/sh and bash, and the template is refused. (ssh's remote command needs a
 * server: the remote user's shell parses it, as docs/triggers.md says.)
 */
describe('why ssh, rsync, flock -c, script -c, sed scripts and functions that run a shell are refused: the value runs as code', () => {
  const running: Array<{ template: string; script: string; value: string; tool: string }> = [
    { template: 'ssh -o BatchMode=yes {{body.v}} true', script: 'ssh -o BatchMode=yes "${AGW_ARG_1}" true', value: '-oProxyCommand=touch canary', tool: 'ssh' },
    {
      template: 'ssh -o {{body.v}} -o BatchMode=yes host true',
      script: 'ssh -o "${AGW_ARG_1}" -o BatchMode=yes host true',
      value: 'ProxyCommand=touch canary',
      tool: 'ssh',
    },
    { template: 'rsync -a {{body.v}} host:/srv/', script: 'rsync -a "${AGW_ARG_1}" host:/srv/', value: "-esh -c 'touch canary'", tool: 'rsync' },
    { template: 'flock ./lock -c "echo {{body.v}}"', script: 'flock ./lock -c "echo ${AGW_ARG_1}"', value: 'x; touch canary', tool: 'flock' },
    { template: 'script -qc "echo {{body.v}}" /dev/null', script: 'script -qc "echo ${AGW_ARG_1}" /dev/null', value: 'x; touch canary', tool: 'script' },
    { template: 'echo a | sed "s/a/{{body.v}}/"', script: 'echo a | sed "s/a/${AGW_ARG_1}/"', value: 'b/\ne touch canary\ns/x/y', tool: 'sed' },
    { template: 'f() { sh; }; f <<EOF\necho {{body.v}}\nEOF', script: 'f() { sh; }; f <<EOF\necho ${AGW_ARG_1}\nEOF', value: 'x; touch canary', tool: 'sh' },
    { template: 'f() { sh; }\necho {{body.v}} | f', script: 'f() { sh; }\necho "${AGW_ARG_1}" | f', value: 'touch canary', tool: 'sh' },
  ];
  itRunsTheValueAsCode(running, {
    does: ({ value }) => `runs the command in ${JSON.stringify(value)}`,
    available: ({ tool }) => onPath(tool),
    pending: ({ tool }, shellName) => `no ${shellName} or ${tool} here`,
    tempDir: 'runs-code',
  });
});

/*
 * Interpreters that run a value as their program: given with -c or -e, as the script file, on
 * their input, or as an option they still read after -e (perl and node read `-e…` and
 * `--eval=…` there as more code). Each runs the command in the value under /bin/sh and bash,
 * and the template is refused; the SQL clients run shell commands through \!, .shell and
 * system. (psql needs a server: TEST_DATABASE_URL, as the other tests.)
 */
describe('why python, perl, node, psql, sqlite3, tclsh, R and julia programs built from a value are refused: the interpreter runs the value as code', () => {
  const touch = 'open("canary", "w")';
  const nodeTouch = 'require("fs").writeFileSync("canary", "")';
  const running: Array<{ template: string; script: string; value: string; tool: string; env?: Record<string, string> }> = [
    { template: 'python3 -c {{body.v}}', script: 'python3 -c "${AGW_ARG_1}"', value: touch, tool: 'python3' },
    { template: `python3 -c "print('{{body.v}}')"`, script: `python3 -c "print('\${AGW_ARG_1}')"`, value: `'); ${touch}; print('`, tool: 'python3' },
    {
      template: `printf '%s\\n' '${touch}' > other.py; python3 {{body.v}}`,
      script: `printf '%s\\n' '${touch}' > other.py; python3 "\${AGW_ARG_1}"`,
      value: 'other.py',
      tool: 'python3',
    },
    {
      template: 'python3 <<EOF\nprint("{{body.v}}")\nEOF',
      script: 'python3 <<EOF\nprint("${AGW_ARG_1}")\nEOF',
      value: `")\n${touch}\nprint("`,
      tool: 'python3',
    },
    {
      template: 'python3 - x <<EOF\nprint("{{body.v}}")\nEOF',
      script: 'python3 - x <<EOF\nprint("${AGW_ARG_1}")\nEOF',
      value: `")\n${touch}\nprint("`,
      tool: 'python3',
    },
    {
      template: 'echo {{body.v}} | xargs -I{} python3 -c "print({})"',
      script: 'echo "${AGW_ARG_1}" | xargs -I{} python3 -c "print({})"',
      value: 'open(chr(99)+chr(97)+chr(110)+chr(97)+chr(114)+chr(121),chr(119))',
      tool: 'python3',
    },
    { template: `perl -e "print '{{body.v}}'"`, script: `perl -e "print '\${AGW_ARG_1}'"`, value: `'; open(F, ">canary"); print '`, tool: 'perl' },
    { template: "perl -e 'print $ARGV[0]' {{body.v}}", script: 'perl -e \'print $ARGV[0]\' "${AGW_ARG_1}"', value: '-e;open(F, ">canary")', tool: 'perl' },
    { template: 'echo {{body.v}} | perl', script: 'echo "${AGW_ARG_1}" | perl', value: 'open(F, ">canary");', tool: 'perl' },
    { template: 'node -e {{body.v}}', script: 'node -e "${AGW_ARG_1}"', value: nodeTouch, tool: 'node' },
    {
      template: "node -e 'console.log(process.argv[1])' {{body.v}}",
      script: 'node -e \'console.log(process.argv[1])\' "${AGW_ARG_1}"',
      value: `--eval=${nodeTouch}`,
      tool: 'node',
    },
    { template: 'echo {{body.v}} | node < /dev/stdin', script: 'echo "${AGW_ARG_1}" | node < /dev/stdin', value: nodeTouch, tool: 'node' },
    { template: 'sqlite3 x.db {{body.v}}', script: 'sqlite3 x.db "${AGW_ARG_1}"', value: '.shell touch canary', tool: 'sqlite3' },
    {
      template: "sqlite3 x.db <<EOF\nselect '{{body.v}}';\nEOF",
      script: "sqlite3 x.db <<EOF\nselect '${AGW_ARG_1}';\nEOF",
      value: "';\n.shell touch canary\nselect '",
      tool: 'sqlite3',
    },
    { template: 'tclsh <<EOF\nputs {{body.v}}\nEOF', script: 'tclsh <<EOF\nputs ${AGW_ARG_1}\nEOF', value: '[exec touch canary]', tool: 'tclsh' },
    { template: 'R --vanilla -e {{body.v}}', script: 'R --vanilla -e "${AGW_ARG_1}"', value: 'file.create("canary")', tool: 'R' },
    { template: 'R CMD BATCH {{body.v}}', script: `printf '%s\\n' 'file.create("canary")' > x.R; R CMD BATCH "\${AGW_ARG_1}"`, value: 'x.R', tool: 'R' },
    { template: 'julia -e {{body.v}}', script: 'julia -e "${AGW_ARG_1}"', value: 'touch("canary")', tool: 'julia' },
    ...(process.env.TEST_DATABASE_URL === undefined
      ? []
      : [
          {
            template: 'psql "$PGURL" -c {{body.v}}',
            script: 'psql "$PGURL" -c "${AGW_ARG_1}"',
            value: '\\! touch canary',
            tool: 'psql',
            env: { PGURL: process.env.TEST_DATABASE_URL },
          },
          {
            template: 'psql "$PGURL" {{body.v}}',
            script: 'psql "$PGURL" "${AGW_ARG_1}"',
            value: '-c\\! touch canary',
            tool: 'psql',
            env: { PGURL: process.env.TEST_DATABASE_URL },
          },
        ]),
  ];
  itRunsTheValueAsCode(running, {
    does: ({ value }) => `runs the code in ${JSON.stringify(value)}`,
    available: ({ tool }) => onPath(tool),
    pending: notInstalled,
    tempDir: 'interpreter',
  });
  // The mysql client runs -e (and its system command) only once connected to a server.
  it.skip('"mysql -e {{body.v}}" runs the shell command in "system touch canary", so the template is refused — pending: no MySQL server here (mysql connects before it runs -e)', () => {
    expect(() => renderCommand('mysql -e {{body.v}}', requestWith('system touch canary'))).to.throw(/\{\{body\.v\}\} stands /);
  });
});

/*
 * Configuration and variables that make git, node and perl run a command or load code: a git -c
 * value (core.sshCommand, an alias), one git config writes for later commands, GIT_SSH_COMMAND,
 * NODE_OPTIONS, PERL5OPT. Each runs the
 * command in the value under /bin/sh and bash, and the template is refused.
 */
describe('why git -c and git config values, GIT_SSH_COMMAND, NODE_OPTIONS and PERL5OPT from a value are refused: the program runs it', () => {
  const running: Array<{ template: string; script: string; value: string; tool: string }> = [
    {
      template: 'git -c core.sshCommand={{body.v}} ls-remote ssh://example.invalid/x',
      script: 'git -c core.sshCommand="${AGW_ARG_1}" ls-remote ssh://example.invalid/x',
      value: 'touch canary; false',
      tool: 'git',
    },
    {
      template: 'git init -q && git config core.sshCommand {{body.v}} && git ls-remote ssh://example.invalid/x',
      script: 'git init -q && git config core.sshCommand "${AGW_ARG_1}" && git ls-remote ssh://example.invalid/x',
      value: 'touch canary; false',
      tool: 'git',
    },
    { template: 'git -c alias.deploy={{body.v}} deploy', script: 'git -c alias.deploy="${AGW_ARG_1}" deploy', value: '!touch canary', tool: 'git' },
    {
      template: 'GIT_SSH_COMMAND={{body.v}} git ls-remote ssh://example.invalid/x',
      script: 'GIT_SSH_COMMAND="${AGW_ARG_1}" git ls-remote ssh://example.invalid/x',
      value: 'touch canary; false',
      tool: 'git',
    },
    {
      template: 'NODE_OPTIONS={{body.v}} node -e 1',
      script: 'NODE_OPTIONS="${AGW_ARG_1}" node -e 1',
      value: "--import=data:text/javascript,import{writeFileSync}from'fs';writeFileSync('canary','')",
      tool: 'node',
    },
    { template: 'PERL5OPT={{body.v}} perl -e 1', script: 'PERL5OPT="${AGW_ARG_1}" perl -e 1', value: '-Mstrict;system(q(touch),q(canary))', tool: 'perl' },
  ];
  itRunsTheValueAsCode(running, {
    does: ({ value }) => `runs the command in ${JSON.stringify(value)}`,
    available: ({ tool }) => onPath(tool),
    pending: notInstalled,
    tempDir: 'program-config',
  });
});

/*
 * A host or user name from a value reaches ssh_config's ProxyCommand (and Match exec) through %h
 * and %r, which ssh runs with the user's shell: an OpenSSH before 9.6 without the fix of
 * CVE-2023-51385 puts shell metacharacters there as they are. Where this ssh has the fix (it
 * then refuses such names: "hostname contains invalid characters"), the run cannot be shown.
 */
describe('why a token in the ssh destination or -l is refused: ssh_config can hand the host and user to a shell', () => {
  const probe = spawnSync('ssh', ['-G', 'a$(x)'], { encoding: 'utf8' });
  const unfixed = probe.error === undefined && !/invalid characters/.test(probe.stderr);
  const cases: Array<{ template: string; script: string; value: string }> = [
    {
      template: 'ssh -F ./ssh_config -o BatchMode=yes deploy@{{body.v}} true',
      script: 'ssh -F ./ssh_config -o BatchMode=yes deploy@"${AGW_ARG_1}" true',
      value: 'x$(touch canary)',
    },
    {
      template: 'ssh -F ./ssh_config -o BatchMode=yes -l {{body.v}} host true',
      script: 'ssh -F ./ssh_config -o BatchMode=yes -l "${AGW_ARG_1}" host true',
      value: 'u$(touch canary)',
    },
  ];
  for (const { template, script, value } of cases) {
    (unfixed ? it : it.skip)(
      `${JSON.stringify(template)} runs the command in ${JSON.stringify(value)} through a ProxyCommand with %h and %r, so the template is refused${unfixed ? '' : ` — pending: ${probe.error === undefined ? 'this OpenSSH refuses such names (CVE-2023-51385 fixed)' : 'ssh not installed'}`}`,
      async () => {
        const cwd = await tempDir('ssh-destination');
        const shell = new ChildProcessShellExecutor({ ...DEFAULT_SHELL_SETTINGS, shell: '/bin/sh' });
        const config = `printf 'Host *\\n  ProxyCommand true %%h %%r\\n' > ssh_config; `;
        const run = await shell.run(config + script, { cwd, timeoutMs: 10_000, env: { PATH: process.env.PATH ?? '', AGW_ARG_1: value } });
        expect(existsSync(join(cwd, 'canary')), `${script}\n${run.output}`).to.equal(true);
        expect(() => renderCommand(template, requestWith(value))).to.throw(/\{\{body\.v\}\} stands /);
      },
    );
  }
});

/*
 * An interpreter given its program still reads its input as code with python3 -i, node -i -e
 * (a REPL once the program ran) or perl -d (the debugger runs the commands it reads). Each
 * runs the code piped into it under /bin/sh and bash, and the template is refused.
 */
describe('why a pipe into python3 -i, node -i or perl -d is refused: the interpreter runs its input after the program', () => {
  const running: Array<{ template: string; script: string; value: string; tool: string }> = [
    {
      template: "printf 'x = 1\\n' > s.py; echo {{body.v}} | python3 -i s.py",
      script: `printf 'x = 1\\n' > s.py; echo "\${AGW_ARG_1}" | python3 -i s.py`,
      value: 'open("canary", "w")',
      tool: 'python3',
    },
    { template: "echo {{body.v}} | python3 -ic 'x = 1'", script: `echo "\${AGW_ARG_1}" | python3 -ic 'x = 1'`, value: 'open("canary", "w")', tool: 'python3' },
    {
      template: 'echo {{body.v}} | node -i -e 1',
      script: 'echo "${AGW_ARG_1}" | node -i -e 1',
      value: 'require("fs").writeFileSync("canary", "")',
      tool: 'node',
    },
    {
      template: "printf '1;\\n' > s.pl; echo {{body.v}} | perl -d s.pl",
      script: `printf '1;\\n' > s.pl; echo "\${AGW_ARG_1}" | perl -d s.pl`,
      value: 'open(F, ">canary")',
      tool: 'perl',
    },
  ];
  itRunsTheValueAsCode(running, {
    does: ({ value }) => `runs the code in ${JSON.stringify(value)}`,
    available: ({ tool }) => onPath(tool),
    pending: notInstalled,
    tempDir: 'interactive',
    env: (cwd) => ({ PATH: process.env.PATH ?? '', HOME: cwd }),
  });
});

/*
 * A wrapper's option that takes the next word, bundled after options that take none (env -iC
 * DIR, env -iS STRING, xargs -0I R): the word after it is its value, and the command after that
 * runs the value. Each runs the value under /bin/sh and bash, and the template is refused.
 */
describe('why bundled wrapper options (env -iC, env -iS, xargs -0I) do not hide the shell they run', () => {
  const running: Array<{ template: string; script: string; value: string }> = [
    { template: 'env -iC ./ sh -c {{body.v}}', script: 'env -iC ./ sh -c "${AGW_ARG_1}"', value: 'touch canary' },
    { template: "env -iS 'sh -c' {{body.v}}", script: `env -iS 'sh -c' "\${AGW_ARG_1}"`, value: 'touch canary' },
    {
      template: "printf '%s' {{body.v}} | xargs -0I {} sh -c 'echo {}'",
      script: `printf '%s' "\${AGW_ARG_1}" | xargs -0I {} sh -c 'echo {}'`,
      value: 'x; touch canary',
    },
  ];
  itRunsTheValueAsCode(running, {
    does: ({ value }) => `runs the command in ${JSON.stringify(value)}`,
    pending: (_, shellName) => `no ${shellName}`,
    tempDir: 'bundled',
  });
});

/*
 * git subcommands' options that run a command: clone -c core.sshCommand, fetch and push to a
 * local remote with --upload-pack / --receive-pack (a shell runs it; over ssh, the server's), and
 * a value at the start of a word before -- read as such an option. Each runs the command in the
 * value under /bin/sh and bash, and the template is refused.
 */
describe("why a git subcommand's --upload-pack, --receive-pack, clone -c and a value before -- are refused: git runs the command", () => {
  const setup = 'git init -q src && git -C src -c user.email=a@b -c user.name=a commit -q --allow-empty -m x && git clone -q src work && cd work && ';
  const running: Array<{ template: string; script: string; value: (cwd: string) => string }> = [
    {
      template: 'git clone -q -c core.sshCommand={{body.v}} ssh://example.invalid/x d',
      script: 'git clone -q -c core.sshCommand="${AGW_ARG_1}" ssh://example.invalid/x d',
      value: (cwd) => `touch ${cwd}/canary; false`,
    },
    {
      template: `${setup}git fetch -q origin {{body.v}}`,
      script: `${setup}git fetch -q origin "\${AGW_ARG_1}"`,
      value: (cwd) => `--upload-pack=touch ${cwd}/canary; false`,
    },
    { template: `${setup}git pull -q {{body.v}}`, script: `${setup}git pull -q "\${AGW_ARG_1}"`, value: (cwd) => `--upload-pack=touch ${cwd}/canary; false` },
    {
      template: `${setup}git push -q origin {{body.v}} HEAD:refs/heads/x`,
      script: `${setup}git push -q origin "\${AGW_ARG_1}" HEAD:refs/heads/x`,
      value: (cwd) => `--receive-pack=touch ${cwd}/canary; false`,
    },
  ];
  itRunsTheValueAsCode(running, {
    does: () => 'runs the command in the value',
    available: () => onPath('git'),
    pending: () => 'git not installed (or no shell)',
    tempDir: 'git-subcommand',
    env: (cwd) => ({ PATH: process.env.PATH ?? '', HOME: cwd, GIT_CONFIG_NOSYSTEM: '1' }),
    timeoutMs: 20_000,
  });
  it('git push origin -- {{body.v}}, git fetch origin -- {{body.v}} take the value as a refspec, and the templates are accepted', async () => {
    const cwd = await tempDir('git-subcommand');
    const shell = new ChildProcessShellExecutor({ ...DEFAULT_SHELL_SETTINGS, shell: '/bin/sh' });
    const value = `--receive-pack=touch ${cwd}/canary; false`;
    const template = `${setup}git push -q origin -- {{body.v}}; git fetch -q origin -- {{body.v}}`;
    const rendered = renderCommand(template, requestWith(value));
    await shell.run(rendered.script, { cwd, timeoutMs: 20_000, env: { PATH: process.env.PATH ?? '', HOME: cwd, GIT_CONFIG_NOSYSTEM: '1', ...rendered.env } });
    expect(existsSync(join(cwd, 'canary'))).to.equal(false);
  });
});

/*
 * The repository git works in, chosen by a value: git -C, --git-dir and GIT_DIR make git read that repository's
 * configuration, and a repository planted there (or reached with ../) whose core.fsmonitor names a command has git status
 * run it. Each runs the command under /bin/sh and bash, and the template is refused.
 */
describe('why a value choosing the repository git -C, --git-dir or GIT_DIR works in is refused: its configuration runs a command', () => {
  const plant = async (cwd: string): Promise<void> => {
    const env = { PATH: process.env.PATH ?? '', HOME: cwd, GIT_CONFIG_NOSYSTEM: '1' };
    for (const args of [
      ['init', '-q', 'planted'],
      ['-C', 'planted', 'config', 'core.fsmonitor', `touch '${cwd}/canary'; false`],
    ]) {
      const run = spawnSync('git', args, { cwd, env });
      expect(run.status, String(run.stderr)).to.equal(0);
    }
  };
  const running: Array<{ template: string; script: string; value: string; prepare: (cwd: string) => Promise<void> }> = [
    { template: 'git -C {{body.v}} status', script: 'git -C "${AGW_ARG_1}" status', value: 'planted', prepare: plant },
    {
      template: 'git -C ./repos/{{body.v}} status',
      script: 'git -C ./repos/"${AGW_ARG_1}" status',
      value: '../planted',
      prepare: async (cwd) => {
        await plant(cwd);
        await mkdir(join(cwd, 'repos'));
      },
    },
    { template: 'git --git-dir={{body.v}} status', script: 'git --git-dir="${AGW_ARG_1}" status', value: 'planted/.git', prepare: plant },
    { template: 'GIT_DIR={{body.v}} git status', script: 'GIT_DIR="${AGW_ARG_1}" git status', value: 'planted/.git', prepare: plant },
  ];
  itRunsTheValueAsCode(running, {
    does: ({ value }) => `runs the core.fsmonitor command of the repository planted at ${JSON.stringify(value)}`,
    available: () => onPath('git'),
    pending: () => 'git not installed (or no shell)',
    tempDir: 'git-repository',
    env: (cwd) => ({ PATH: process.env.PATH ?? '', HOME: cwd, GIT_CONFIG_NOSYSTEM: '1' }),
    timeoutMs: 20_000,
  });
  it('git -C ./app status -- {{body.v}}, a fixed directory and a value after -- as a path, runs no planted configuration: the template is accepted', async () => {
    const cwd = await tempDir('git-repository');
    await plant(cwd);
    spawnSync('git', ['init', '-q', 'app'], { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, GIT_CONFIG_NOSYSTEM: '1' } });
    const shell = new ChildProcessShellExecutor({ ...DEFAULT_SHELL_SETTINGS, shell: '/bin/sh' });
    const rendered = renderCommand('git -C ./app status -- {{body.v}}', requestWith('../planted'));
    await shell.run(rendered.script, { cwd, timeoutMs: 20_000, env: { PATH: process.env.PATH ?? '', HOME: cwd, GIT_CONFIG_NOSYSTEM: '1', ...rendered.env } });
    expect(existsSync(join(cwd, 'canary'))).to.equal(false);
  });
});

/*
 * A file the command runs as its script or program, written by a process substitution from a
 * value (bash: `python3 <(…)`, `sh <(…)`, `. <(…)`, `python3 < <(…)`), or a here-document on the
 * descriptor a script file names (`python3 /dev/fd/3 3<<EOF`, also under dash). Each runs the
 * value, and the template is refused.
 */
describe('why a process substitution or a /dev/fd/N here-document that becomes a program is refused: the value runs as code', () => {
  const touch = 'open("canary", "w")';
  const running: Array<{ template: string; script: string; value: string; shells: ReadonlyArray<'/bin/sh' | 'bash'> }> = [
    { template: 'python3 <(echo {{body.v}})', script: 'python3 <(echo "${AGW_ARG_1}")', value: touch, shells: ['bash'] },
    { template: 'python3 < <(echo {{body.v}})', script: 'python3 < <(echo "${AGW_ARG_1}")', value: touch, shells: ['bash'] },
    { template: 'sh <(echo {{body.v}})', script: 'sh <(echo "${AGW_ARG_1}")', value: 'touch canary', shells: ['bash'] },
    { template: '. <(echo {{body.v}})', script: '. <(echo "${AGW_ARG_1}")', value: 'touch canary', shells: ['bash'] },
    { template: 'python3 /dev/fd/3 3<<EOF\n{{body.v}}\nEOF', script: 'python3 /dev/fd/3 3<<EOF\n${AGW_ARG_1}\nEOF', value: touch, shells: ['/bin/sh', 'bash'] },
  ];
  itRunsTheValueAsCode(running, {
    does: ({ value }) => `runs the code in ${JSON.stringify(value)}`,
    available: () => onPath('python3'),
    pending: (_, shellName) => `python3 not installed (or no ${shellName})`,
    tempDir: 'substitution',
  });
});

/*
 * A package manager given a version from a value installs what the value names: npm reads
 * `pkg@file:…` (also `npm:other@1`, a git URL) as another package, and pip reads a requirement
 * `pkg==0/../x.tar.gz` (a `/` and an archive suffix) as the path of an archive. Installing runs
 * the package's install script or build backend. Each runs the code of a package the test writes
 * (no network), under /bin/sh and bash, and the template is refused.
 */
describe('why a package version from a value is refused: npm and pip install what it names, and its code runs', () => {
  /** An app in run/ and, in evil.tgz, a package whose install script creates the canary. */
  const npmPackageTouchingCanary = async (cwd: string): Promise<void> => {
    await mkdir(join(cwd, 'evil', 'package'), { recursive: true });
    await mkdir(join(cwd, 'run'));
    await writeFile(join(cwd, 'run', 'package.json'), '{"name":"app","version":"1.0.0"}');
    await writeFile(
      join(cwd, 'evil', 'package', 'package.json'),
      JSON.stringify({ name: 'evil', version: '1.0.0', scripts: { install: `touch ${cwd}/canary` } }),
    );
    spawnSync('tar', ['czf', join(cwd, 'evil.tgz'), 'package'], { cwd: join(cwd, 'evil') });
  };
  const running: Array<{ tool: string; template: string; script: string; value: (cwd: string) => string; prepare: (cwd: string) => Promise<void> }> = [
    {
      tool: 'npm',
      template: 'cd run && npm i --no-save --offline --no-audit --no-fund --no-update-notifier left-pad@{{body.v}}',
      script: 'cd run && npm i --no-save --offline --no-audit --no-fund --no-update-notifier left-pad@"${AGW_ARG_1}"',
      value: (cwd) => `file:${cwd}/evil.tgz`,
      prepare: npmPackageTouchingCanary,
    },
    {
      tool: 'npm',
      template: "cd run && printf '%s\\n' {{body.v}} | xargs npm i --no-save --offline --no-audit --no-fund --no-update-notifier",
      script: `cd run && printf '%s\\n' "\${AGW_ARG_1}" | xargs npm i --no-save --offline --no-audit --no-fund --no-update-notifier`,
      value: (cwd) => `left-pad@file:${cwd}/evil.tgz`,
      prepare: npmPackageTouchingCanary,
    },
    {
      tool: 'pip',
      template: 'cd run && pip install --no-index --dry-run six=={{body.v}}',
      script: 'cd run && pip install --no-index --dry-run six=="${AGW_ARG_1}"',
      value: () => '0/../../evil.tar.gz',
      prepare: async (cwd) => {
        await mkdir(join(cwd, 'evil-1.0', 'backend'), { recursive: true });
        await mkdir(join(cwd, 'run'));
        await writeFile(join(cwd, 'evil-1.0', 'pyproject.toml'), '[build-system]\nrequires = []\nbuild-backend = "evil"\nbackend-path = ["backend"]\n');
        await writeFile(join(cwd, 'evil-1.0', 'backend', 'evil.py'), `open(${JSON.stringify(`${cwd}/canary`)}, "w")\n`);
        spawnSync('tar', ['czf', join(cwd, 'evil.tar.gz'), 'evil-1.0'], { cwd });
      },
    },
  ];
  itRunsTheValueAsCode(running, {
    does: () => 'runs the install code of the package the value names',
    available: ({ tool }) => onPath(tool) && onPath('tar'),
    pending: ({ tool }, shellName) => `${tool} or tar not installed (or no ${shellName})`,
    tempDir: 'package-version',
    // HOME stays the user's: pip may be a pyenv shim, which finds its Python there. Debian's own
    // pip refuses any install outside a virtual environment (PEP 668) before it reads the
    // package: allowed here, for a --dry-run that installs nothing.
    env: (cwd) =>
      ({ ...process.env, npm_config_cache: join(cwd, 'npm-cache'), PIP_NO_CACHE_DIR: '1', PIP_BREAK_SYSTEM_PACKAGES: '1' }) as Record<string, string>,
    timeoutMs: 60_000,
  });
});

/*
 * npm reads every npm_config_… variable (any case) as its configuration: node-options becomes the
 * NODE_OPTIONS of the scripts it runs, script-shell the program that runs them. The value loads
 * a module (here one the test wrote) into the script's node, under /bin/sh and bash, and the
 * template is refused.
 */
describe("why npm_config_… variables and a value before npm's -- are refused: npm passes node-options to its scripts and runs them with script-shell", () => {
  /** An app whose build script runs node, and the module evil.cjs that creates the canary. */
  const prepare = async (cwd: string): Promise<void> => {
    await writeFile(join(cwd, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', scripts: { build: 'node -e 0' } }));
    await writeFile(join(cwd, 'evil.cjs'), `require("node:fs").writeFileSync(${JSON.stringify(join(cwd, 'canary'))}, "")\n`);
  };
  const forms = [
    {
      template: 'npm_config_node_options={{body.v}} npm run --silent build',
      script: 'npm_config_node_options="${AGW_ARG_1}" npm run --silent build',
      value: (cwd: string) => `--require=${join(cwd, 'evil.cjs')}`,
      prepare,
    },
    // npm reads its options anywhere before --: a value --node-options=… after the script's name is one.
    {
      template: 'npm run --silent build {{body.v}}',
      script: 'npm run --silent build "${AGW_ARG_1}"',
      value: (cwd: string) => `--node-options=--require=${join(cwd, 'evil.cjs')}`,
      prepare,
    },
  ];
  itRunsTheValueAsCode(forms, {
    does: () => "loads the module the value names into the script's node",
    available: () => onPath('npm'),
    pending: (_, shellName) => `npm not installed (or no ${shellName})`,
    tempDir: 'npm-config',
    env: (cwd) => ({ ...process.env, npm_config_cache: join(cwd, 'npm-cache'), npm_config_update_notifier: 'false' }) as Record<string, string>,
    timeoutMs: 60_000,
  });
});

/*
 * Places the review of the package-manager work found accepted, each proved by a run (offline,
 * under /bin/sh and bash, in a fresh directory): npm explore joins its command's words and runs
 * them with sh -c; make expands $(shell …) in a command-line variable, also one the recipe
 * only reads as "$$REF" (make exports it expanded), and in --eval's value; npm version reads a
 * message starting with - as its own option (the shell script-shell names then runs the version
 * scripts); cargo splits a target's runner at spaces and runs it with the program; tsx -e and a
 * free-threaded python3.13t -c run their program. Each template is refused.
 */
describe('why npm explore, make variables, a -c string running its parameters, npm version -m, a cargo runner, tsx -e and python3.13t -c are refused: the value runs as code', () => {
  const tsxBin = join(process.cwd(), 'node_modules', '.bin');
  const running: Array<RunsTheValue & { tool: string; does: string }> = [
    {
      tool: 'npm',
      does: 'runs the value with sh -c in the package directory',
      template: 'npm explore foo -- {{body.v}}',
      script: 'npm explore foo -- "${AGW_ARG_1}"',
      value: (cwd) => `x; touch ${cwd}/canary`,
      prepare: async (cwd) => {
        await mkdir(join(cwd, 'node_modules', 'foo'), { recursive: true });
        await writeFile(join(cwd, 'package.json'), '{"name":"app","version":"1.0.0"}');
        await writeFile(join(cwd, 'node_modules', 'foo', 'package.json'), '{"name":"foo","version":"1.0.0"}');
      },
    },
    {
      tool: 'npm',
      does: 'runs the version scripts with the shell a value --script-shell=… names',
      template: 'npm version patch --no-git-tag-version -m {{body.v}}',
      script: 'npm version patch --no-git-tag-version -m "${AGW_ARG_1}"',
      value: (cwd) => `--script-shell=${cwd}/evil.sh`,
      prepare: async (cwd) => {
        await writeFile(join(cwd, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', scripts: { preversion: 'true' } }));
        await writeFile(join(cwd, 'evil.sh'), `#!/bin/sh\ntouch ${cwd}/canary\nexec /bin/sh "$@"\n`, { mode: 0o755 });
      },
    },
    {
      tool: 'make',
      does: 'expands $(shell …) in a variable the recipe reads only as "$$REF"',
      template: 'make -s deploy REF={{body.v}}',
      script: 'make -s deploy REF="${AGW_ARG_1}"',
      value: '$(shell touch canary)',
      prepare: (cwd) => writeFile(join(cwd, 'Makefile'), 'deploy:\n\t@printf \'%s\\n\' "$$REF"\n'),
    },
    {
      tool: 'make',
      does: 'evaluates a value --eval=… as makefile text',
      template: 'make -s {{body.v}} deploy',
      script: 'make -s "${AGW_ARG_1}" deploy',
      value: '--eval=$(shell touch canary)',
      prepare: (cwd) => writeFile(join(cwd, 'Makefile'), 'deploy:\n\t@true\n'),
    },
    {
      tool: 'make',
      does: 'reads a value X=$(shell …) after the -- a -c string gives make as a variable, and expands it',
      template: `sh -c 'make -s -- "$1"' sh {{body.v}}`,
      script: `sh -c 'make -s -- "$1"' sh "\${AGW_ARG_1}"`,
      value: 'X=$(shell touch canary)',
      prepare: (cwd) => writeFile(join(cwd, 'Makefile'), 'all:\n\t@true\n'),
    },
    {
      tool: 'sh',
      does: 'evaluates the positional parameter its -c string gives eval',
      template: `sh -c 'eval "$1"' sh {{body.v}}`,
      script: `sh -c 'eval "$1"' sh "\${AGW_ARG_1}"`,
      value: 'touch canary',
    },
    {
      tool: 'cargo',
      does: "splits the value at spaces and runs it as the target's runner",
      template: 'CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER={{body.v}} cargo run -q',
      script: 'CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER="${AGW_ARG_1}" cargo run -q',
      value: "python3 -c __import__('os').system('touch${IFS}canary')",
      env: { CARGO_NET_OFFLINE: 'true' },
      prepare: async (cwd) => {
        await mkdir(join(cwd, 'src'));
        await writeFile(join(cwd, 'Cargo.toml'), '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n');
        await writeFile(join(cwd, 'src', 'main.rs'), 'fn main() {}\n');
      },
    },
    {
      tool: 'tsx',
      does: 'runs the program',
      template: 'tsx -e {{body.v}}',
      script: 'tsx -e "${AGW_ARG_1}"',
      value: 'require("node:fs").writeFileSync("canary", "")',
      env: { PATH: `${tsxBin}:${process.env.PATH ?? ''}` },
    },
    {
      // python3.13t is the free-threaded build's name; here a link to python3 under that name, which the check reads.
      tool: 'python3',
      does: 'runs the program',
      template: 'python3.13t -c {{body.v}}',
      script: 'PATH="$PWD/bin:$PATH" python3.13t -c "${AGW_ARG_1}"',
      value: 'open("canary", "w")',
      prepare: async (cwd) => {
        await mkdir(join(cwd, 'bin'));
        const python = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).stdout.trim();
        spawnSync('ln', ['-s', python, join(cwd, 'bin', 'python3.13t')]);
      },
    },
  ];
  itRunsTheValueAsCode(running, {
    does: ({ does }) => does,
    available: ({ tool }) =>
      tool === 'tsx'
        ? existsSync(join(tsxBin, 'tsx'))
        : tool === 'cargo'
          ? onPath('cargo') && onPath('python3') && process.platform === 'linux' && process.arch === 'x64'
          : onPath(tool),
    pending: notInstalled,
    tempDir: 'review-places',
    env: (cwd) => ({ ...process.env, npm_config_cache: join(cwd, 'npm-cache'), npm_config_update_notifier: 'false' }) as Record<string, string>,
    timeoutMs: 120_000,
  });
});

/*
 * Programs a template reaches through a runner (uv run, conda run), the node options npx gives
 * the program it runs, and a here-document exec leaves as the input of the commands after it.
 * Each runs the code in the value under /bin/sh and bash, and the template is refused.
 */
describe("why a runner's program, npx's node options and exec's here-documents are refused: the value runs as code", () => {
  const touch = 'open("canary", "w")';
  const running: Array<RunsTheValue & { tool: string; does: string }> = [
    // uv run and conda run run python3 as it runs outside them.
    { tool: 'uv', does: 'runs the program of python3 -c', template: 'uv run python3 -c {{body.v}}', script: 'uv run python3 -c "${AGW_ARG_1}"', value: touch },
    {
      tool: 'conda',
      does: 'runs the program of python -c',
      template: 'conda run -n base python -c {{body.v}}',
      script: 'conda run -n base python -c "${AGW_ARG_1}"',
      value: touch,
    },
    {
      // npx runs a bin of the project's with NODE_OPTIONS set to what --node-options gives: --require loads a file.
      tool: 'npx',
      does: 'gives node the options in the value, whose --require runs a file',
      template: 'npx --node-options {{body.v}} hello',
      script: 'npx --node-options "${AGW_ARG_1}" hello',
      value: (cwd) => `--require=${cwd}/evil.js`,
      prepare: async (cwd) => {
        await mkdir(join(cwd, 'node_modules', '.bin'), { recursive: true });
        await writeFile(join(cwd, 'package.json'), '{"name":"app","version":"1.0.0"}');
        await writeFile(join(cwd, 'node_modules', '.bin', 'hello'), '#!/usr/bin/env node\n', { mode: 0o755 });
        await writeFile(join(cwd, 'evil.js'), `require("node:fs").writeFileSync(${JSON.stringify(join(cwd, 'canary'))}, "");\n`);
      },
    },
    {
      // exec without a command makes the here-document the script's input: python3, given no program, reads it as one.
      tool: 'python3',
      does: 'leaves the here-document as the input python3 reads its program from',
      template: 'exec <<EOF\n{{body.v}}\nEOF\npython3',
      script: 'exec <<EOF\n${AGW_ARG_1}\nEOF\npython3',
      value: touch,
    },
    {
      // exec -- is exec without a command too, in bash (dash's exec takes -- for the command's name and fails).
      tool: 'python3',
      shells: ['bash'],
      does: 'leaves the here-document given to exec -- as the input python3 reads its program from',
      template: 'exec -- <<EOF\n{{body.v}}\nEOF\npython3',
      script: 'exec -- <<EOF\n${AGW_ARG_1}\nEOF\npython3',
      value: touch,
    },
  ];
  itRunsTheValueAsCode(running, {
    does: ({ does }) => does,
    available: ({ tool }) => onPath(tool),
    pending: notInstalled,
    tempDir: 'runners',
    env: (cwd) => ({ ...process.env, npm_config_cache: join(cwd, 'npm-cache'), npm_config_update_notifier: 'false' }) as Record<string, string>,
    timeoutMs: 120_000,
  });
});

/*
 * A value that chooses the code that runs without being code itself: the directory cd goes to (a planted ./deploy.sh
 * runs there), a -c string's parameter copied into a variable run as a command, and a requirements file pip reads from
 * its input (a line naming a local project whose build backend runs), a line a -c string reads and runs, and a word kubectl
 * reads as its own --kubeconfig (whose credential plugin runs on the host). Each runs code of the value's choosing, under
 * /bin/sh and bash, and the template is refused.
 */
describe('why cd to a value, a variable a -c string copies its parameter or input into, pip -r /dev/stdin and a value kubectl reads as an option are refused: the value chooses what runs', () => {
  /** planted/deploy.sh, which creates the canary, and an empty apps/ beside it. */
  const plantScript = async (cwd: string): Promise<void> => {
    await mkdir(join(cwd, 'planted'));
    await mkdir(join(cwd, 'apps'));
    await writeFile(join(cwd, 'planted', 'deploy.sh'), `#!/bin/sh\ntouch '${cwd}/canary'\n`, { mode: 0o755 });
  };
  /** evil-1.0, a local project whose build backend creates the canary when pip reads its metadata. */
  const plantProject = async (cwd: string): Promise<void> => {
    await mkdir(join(cwd, 'evil-1.0', 'backend'), { recursive: true });
    await writeFile(join(cwd, 'evil-1.0', 'pyproject.toml'), '[build-system]\nrequires = []\nbuild-backend = "evil"\nbackend-path = ["backend"]\n');
    await writeFile(join(cwd, 'evil-1.0', 'backend', 'evil.py'), `open(${JSON.stringify(`${cwd}/canary`)}, "w")\n`);
  };
  /** kubeconfig, whose user's exec credential plugin creates the canary (its server, port 9, answers nothing). */
  const plantKubeconfig = async (cwd: string): Promise<void> => {
    const plugin = `{ apiVersion: client.authentication.k8s.io/v1beta1, command: /bin/sh, args: ["-c", "touch '${cwd}/canary'; exit 1"], interactiveMode: Never }`;
    await writeFile(
      join(cwd, 'kubeconfig'),
      `apiVersion: v1\nkind: Config\nclusters: [{ name: c, cluster: { server: "https://127.0.0.1:9" } }]\ncontexts: [{ name: c, context: { cluster: c, user: u } }]\ncurrent-context: c\nusers: [{ name: u, user: { exec: ${plugin} } }]\n`,
    );
  };
  const running: Array<{
    tool: string;
    does: string;
    template: string;
    script: string;
    value: string | ((cwd: string) => string);
    prepare?: (cwd: string) => Promise<void>;
  }> = [
    {
      tool: 'sh',
      does: 'runs the deploy.sh planted in the directory the value leads cd to',
      template: 'cd ./apps/{{body.v}} && ./deploy.sh',
      script: 'cd ./apps/"${AGW_ARG_1}" && ./deploy.sh',
      value: '../planted',
      prepare: plantScript,
    },
    {
      tool: 'sh',
      does: 'runs the value a -c string copies into a variable and runs as a command',
      template: `sh -c 'x=$1; $x' sh {{body.v}}`,
      script: `sh -c 'x=$1; $x' sh "\${AGW_ARG_1}"`,
      value: 'touch canary',
    },
    {
      tool: 'pip',
      does: 'builds the local project a requirements line from its input names, whose build backend runs',
      template: "printf '%s\\n' {{body.v}} | pip install --no-index --dry-run -r /dev/stdin",
      script: `printf '%s\\n' "\${AGW_ARG_1}" | pip install --no-index --dry-run -r /dev/stdin`,
      value: (cwd) => join(cwd, 'evil-1.0'),
      prepare: plantProject,
    },
    {
      tool: 'sh',
      does: 'runs the line a -c string reads from the pipe into it and runs as a command',
      template: "printf '%s\\n' {{body.v}} | sh -c 'read -r x; $x'",
      script: `printf '%s\\n' "\${AGW_ARG_1}" | sh -c 'read -r x; $x'`,
      value: 'touch canary',
    },
    {
      tool: 'sh',
      does: 'runs the value a read loop over a here-document holding its parameter runs as a command',
      template: `sh -c 'while read -r x; do $x; done <<EOF\n$1\nEOF' sh {{body.v}}`,
      script: `sh -c 'while read -r x; do $x; done <<EOF\n$1\nEOF' sh "\${AGW_ARG_1}"`,
      value: 'touch canary',
    },
    {
      tool: 'sh',
      does: 'runs the deploy.sh planted where a variable the template assigns the value to leads cd',
      template: 'd={{body.v}}; cd "./apps/$d" && ./deploy.sh',
      script: 'd="${AGW_ARG_1}"; cd "./apps/$d" && ./deploy.sh',
      value: '../planted',
      prepare: plantScript,
    },
    {
      tool: 'sh',
      does: 'evaluates the variable of its environment the value is assigned to',
      template: `REF={{body.v}} sh -c 'eval "$REF"'`,
      script: `REF="\${AGW_ARG_1}" sh -c 'eval "$REF"'`,
      value: 'touch canary',
    },
    {
      tool: 'sh',
      does: 'evaluates the parameter a -c string in double quotes references escaped',
      template: `sh -c "eval \\$1" sh {{body.v}}`,
      script: `sh -c "eval \\$1" sh "\${AGW_ARG_1}"`,
      value: 'touch canary',
    },
    {
      tool: 'sh',
      does: "evaluates the argument of the template's own function",
      template: `f() { eval "$1"; }; f {{body.v}}`,
      script: `f() { eval "$1"; }; f "\${AGW_ARG_1}"`,
      value: 'touch canary',
    },
    {
      tool: 'sh',
      does: 'runs as a command the line read from a pipe holding the value',
      template: "printf '%s\\n' {{body.v}} | { read -r x; $x; }",
      script: `printf '%s\\n' "\${AGW_ARG_1}" | { read -r x; $x; }`,
      value: 'touch canary',
    },
    {
      tool: 'kubectl',
      does: 'reads the value after the program as its own --kubeconfig, whose credential plugin it runs on the host (before it finds no server or refuses exec without --)',
      template: 'kubectl exec pod ./deploy.sh {{body.v}}',
      script: 'kubectl exec pod ./deploy.sh "${AGW_ARG_1}"',
      value: (cwd) => `--kubeconfig=${join(cwd, 'kubeconfig')}`,
      prepare: plantKubeconfig,
    },
    {
      tool: 'kubectl',
      does: 'reads the value after logs -f (--follow, which takes no value) as its own --kubeconfig, whose credential plugin it runs',
      template: 'kubectl logs -f {{body.v}}',
      script: 'kubectl logs -f "${AGW_ARG_1}"',
      value: (cwd) => `--kubeconfig=${join(cwd, 'kubeconfig')}`,
      prepare: plantKubeconfig,
    },
  ];
  itRunsTheValueAsCode(running, {
    does: ({ does }) => does,
    available: ({ tool }) => onPath(tool),
    pending: notInstalled,
    tempDir: 'chosen-code',
    // HOME stays the user's: pip may be a pyenv shim, which finds its Python there (as for the package versions above).
    env: () => ({ ...process.env, PIP_NO_CACHE_DIR: '1', PIP_BREAK_SYSTEM_PACKAGES: '1' }) as Record<string, string>,
    timeoutMs: 60_000,
  });
  (onPath('kubectl') ? it : it.skip)(
    `kubectl get pods -- {{body.v}} reads no value after its -- as an option (no credential plugin of its choosing runs): the template is accepted${onPath('kubectl') ? '' : ' — pending: kubectl not installed'}`,
    async () => {
      const cwd = await tempDir('chosen-code');
      await plantKubeconfig(cwd);
      const value = `--kubeconfig=${join(cwd, 'kubeconfig')}`;
      const shell = new ChildProcessShellExecutor({ ...DEFAULT_SHELL_SETTINGS, shell: '/bin/sh' });
      const rendered = renderCommand('kubectl get pods -- {{body.v}}', requestWith(value));
      // The environment's own kubeconfig is one that does not exist, so kubectl reaches no cluster of this machine.
      await shell.run(rendered.script, { cwd, timeoutMs: 20_000, env: { PATH: process.env.PATH ?? '', KUBECONFIG: join(cwd, 'none'), ...rendered.env } });
      expect(existsSync(join(cwd, 'canary'))).to.equal(false);
    },
  );
  it("cd ./apps/app && ./deploy.sh {{body.v}}, a fixed directory and the value as the script's argument, runs no planted script: the template is accepted", async () => {
    const cwd = await tempDir('chosen-code');
    await plantScript(cwd);
    await mkdir(join(cwd, 'apps', 'app'));
    await writeFile(join(cwd, 'apps', 'app', 'deploy.sh'), '#!/bin/sh\nprintf %s "$1" > ref.txt\n', { mode: 0o755 });
    const shell = new ChildProcessShellExecutor({ ...DEFAULT_SHELL_SETTINGS, shell: '/bin/sh' });
    const rendered = renderCommand('cd ./apps/app && ./deploy.sh {{body.v}}', requestWith('../planted'));
    await shell.run(rendered.script, { cwd, timeoutMs: 10_000, env: { PATH: process.env.PATH ?? '', ...rendered.env } });
    expect(existsSync(join(cwd, 'canary'))).to.equal(false);
    expect(await readFile(join(cwd, 'apps', 'app', 'ref.txt'), 'utf8')).to.equal('../planted');
  });
});

describe('why mvn -f, a tar option at the start of an operand and variables a heredoc read, getopts, a nameref or ${y:=…} fill are refused: the value chooses what runs', () => {
  /** agent.jar, a Java agent that creates the canary in the directory the JVM starts in, and planted/.mvn/jvm.config loading it. */
  const plantMavenProject = async (cwd: string): Promise<void> => {
    await mkdir(join(cwd, 'apps'));
    await mkdir(join(cwd, 'planted', '.mvn'), { recursive: true });
    await writeFile(join(cwd, 'planted', 'pom.xml'), '');
    await writeFile(
      join(cwd, 'Agent.java'),
      'public class Agent { public static void premain(String a) throws Exception { new java.io.File(System.getProperty("user.dir"), "canary").createNewFile(); } }\n',
    );
    await writeFile(join(cwd, 'manifest.txt'), 'Premain-Class: Agent\n');
    expect(spawnSync('javac', ['Agent.java'], { cwd }).status).to.equal(0);
    expect(spawnSync('jar', ['cfm', 'agent.jar', 'manifest.txt', 'Agent.class'], { cwd }).status).to.equal(0);
    await writeFile(join(cwd, 'planted', '.mvn', 'jvm.config'), `-javaagent:${join(cwd, 'agent.jar')}\n`);
  };
  const running: Array<RunsTheValue & { tool: string; does: string; needs?: readonly string[] }> = [
    {
      tool: 'mvn',
      needs: ['javac', 'jar'],
      does: 'starts its JVM with the options of the .mvn/jvm.config of the project the value leads -f to (a planted agent runs)',
      template: 'mvn -q -o -f ./apps/{{body.v}}/pom.xml validate',
      script: 'mvn -q -o -f ./apps/"${AGW_ARG_1}"/pom.xml validate',
      value: '../planted',
      prepare: plantMavenProject,
    },
    {
      tool: 'mvn',
      needs: ['javac', 'jar'],
      does: 'starts its JVM with the options of the .mvn/jvm.config of the directory MAVEN_BASEDIR names (a planted agent runs)',
      template: 'MAVEN_BASEDIR=./apps/{{body.v}} mvn -q -o validate',
      script: 'MAVEN_BASEDIR=./apps/"${AGW_ARG_1}" mvn -q -o validate',
      value: '../planted',
      prepare: plantMavenProject,
    },
    {
      tool: 'sh',
      does: 'runs as a command the line a read loop reads from a here-document holding the value',
      template: 'while read -r x; do $x; done <<EOF\n{{body.v}}\nEOF',
      script: 'while read -r x; do $x; done <<EOF\n${AGW_ARG_1}\nEOF',
      value: 'touch canary',
    },
    {
      tool: 'sh',
      does: 'evaluates the option value getopts reads from a positional parameter into OPTARG',
      template: 'set -- -a {{body.v}}; getopts a: o; eval "$OPTARG"',
      script: 'set -- -a "${AGW_ARG_1}"; getopts a: o; eval "$OPTARG"',
      value: 'touch canary',
    },
    {
      tool: 'sh',
      does: 'runs as a command the variable ${y:=$x} assigns the value to',
      template: 'x={{body.v}}; : "${y:=$x}"; $y',
      script: 'x="${AGW_ARG_1}"; : "${y:=$x}"; $y',
      value: 'touch canary',
    },
    {
      tool: 'bash',
      does: 'runs as a command the name reference to the variable the value is assigned to',
      template: 'x={{body.v}}; declare -n ref=x; $ref',
      script: 'x="${AGW_ARG_1}"; declare -n ref=x; $ref',
      value: 'touch canary',
      shells: ['bash'],
    },
    {
      tool: 'bash',
      does: 'runs as a command the line read without a name reads into REPLY',
      template: 'read -r <<< {{body.v}}; $REPLY',
      script: 'read -r <<< "${AGW_ARG_1}"; $REPLY',
      value: 'touch canary',
      shells: ['bash'],
    },
    {
      tool: 'bash',
      does: 'runs as a command the lines readarray reads from a here-document holding the value',
      template: 'readarray -t a <<EOF\n{{body.v}}\nEOF\n${a[@]}',
      script: 'readarray -t a <<EOF\n${AGW_ARG_1}\nEOF\n${a[@]}',
      value: 'touch canary',
      shells: ['bash'],
    },
    {
      tool: 'bash',
      does: 'evaluates the variable the value is reached through by an indirect expansion',
      template: 'x={{body.v}}; n=x; eval "${!n}"',
      script: 'x="${AGW_ARG_1}"; n=x; eval "${!n}"',
      value: 'touch canary',
      shells: ['bash'],
    },
    {
      tool: 'bash',
      does: 'runs as a command the name reference a later assignment points at the variable holding the value',
      template: 'x={{body.v}}; declare -n ref; ref=x; $ref',
      script: 'x="${AGW_ARG_1}"; declare -n ref; ref=x; $ref',
      value: 'touch canary',
      shells: ['bash'],
    },
    {
      tool: 'bash',
      does: 'runs as a command the variable the value is appended to (y+=$x)',
      template: 'x={{body.v}}; y+=$x; $y',
      script: 'x="${AGW_ARG_1}"; y+=$x; $y',
      value: 'touch canary',
      shells: ['bash'],
    },
    {
      tool: 'docker',
      does: 'reads the value before its subcommand as its --config, and runs the docker-compose plugin planted in its cli-plugins',
      template: 'docker {{body.v}} compose version',
      script: 'docker "${AGW_ARG_1}" compose version',
      value: '--config=./planted',
      prepare: async (cwd) => {
        await mkdir(join(cwd, 'planted', 'cli-plugins'), { recursive: true });
        const plugin = join(cwd, 'planted', 'cli-plugins', 'docker-compose');
        await writeFile(plugin, `#!/bin/sh\ntouch canary\necho '{"SchemaVersion":"0.1.0","Vendor":"x","Version":"1"}'\n`);
        await chmod(plugin, 0o755);
      },
    },
    {
      tool: 'make',
      does: 'reads as its makefile a process substitution writing the value, and expands its $(shell …)',
      template: 'make -f <(echo {{body.v}})',
      script: 'make -f <(echo "${AGW_ARG_1}")',
      value: 'x:=$(shell touch canary)',
      shells: ['bash'],
    },
    {
      tool: 'tar',
      does: 'reads the value among its operands as its --to-command option, and runs it for the file it extracts',
      template: 'tar -xf ./a.tar {{body.v}}',
      script: 'tar -xf ./a.tar "${AGW_ARG_1}"',
      value: '--to-command=touch canary',
      prepare: async (cwd) => {
        await writeFile(join(cwd, 'm.txt'), 'x');
        expect(spawnSync('tar', ['-cf', 'a.tar', 'm.txt'], { cwd }).status).to.equal(0);
      },
    },
    {
      tool: 'tar',
      does: 'gets from xargs the words of the value as operands, and reads one as its --to-command option',
      template: 'echo {{body.v}} | xargs tar -xf ./a.tar',
      script: 'echo "${AGW_ARG_1}" | xargs tar -xf ./a.tar',
      value: "'--to-command=touch canary'",
      prepare: async (cwd) => {
        await writeFile(join(cwd, 'm.txt'), 'x');
        expect(spawnSync('tar', ['-cf', 'a.tar', 'm.txt'], { cwd }).status).to.equal(0);
      },
    },
    {
      tool: 'tar',
      does: 'gets from xargs -I{} the value where {} starts an operand, and reads it as its --to-command option',
      template: 'echo {{body.v}} | xargs -I{} tar -xf ./a.tar {}',
      script: 'echo "${AGW_ARG_1}" | xargs -I{} tar -xf ./a.tar {}',
      value: '--to-command=touch canary',
      prepare: async (cwd) => {
        await writeFile(join(cwd, 'm.txt'), 'x');
        expect(spawnSync('tar', ['-cf', 'a.tar', 'm.txt'], { cwd }).status).to.equal(0);
      },
    },
  ];
  itRunsTheValueAsCode(running, {
    does: ({ does }) => does,
    available: ({ tool, needs }) => onPath(tool) && (needs ?? []).every(onPath),
    pending: ({ tool, needs }, shellName) => `${[tool, ...(needs ?? [])].join(', ')} not all installed (or no ${shellName})`,
    tempDir: 'chosen-code-2',
    env: () => ({ ...process.env }) as Record<string, string>,
    timeoutMs: 60_000,
  });
});
