import { expect } from 'chai';
import { snapshotRequest } from '../../../../src/domain/templates/request-snapshot.js';
import { commandTokenValues, MAX_ENV_STRING_BYTES, renderCommand } from '../../../../src/domain/templates/render-command.js';
import { findTokenPlaces, REFUSED } from '../../../../src/domain/templates/shell-contexts.js';

const withValue = (value: string) => snapshotRequest({ v: value, w: 'second' }, { q: 'query value' }, { 'x-h': 'header value' });

/** The place of every token of a template: its context, or `refused: <reason>`. */
const places = (template: string): string[] => findTokenPlaces(template).map((t) => ('context' in t.place ? t.place.context : `refused: ${t.place.refused}`));

describe('renderCommand', () => {
  it('puts a reference to a per-run variable where each token stood, and the values in env', () => {
    const rendered = renderCommand('git pull {{body.v}} && echo {{query.q}} {{headers.X-H}} {{body.v}}', withValue('main; rm -rf /'));
    expect(rendered.script).to.equal('git pull "${AGW_ARG_1}" && echo "${AGW_ARG_2}" "${AGW_ARG_3}" "${AGW_ARG_4}"');
    expect(rendered.env).to.deep.equal({ AGW_ARG_1: 'main; rm -rf /', AGW_ARG_2: 'query value', AGW_ARG_3: 'header value', AGW_ARG_4: 'main; rm -rf /' });
  });

  it('spells the reference for the place: unquoted, inside "…", inside \'…\' (close and reopen), in a here-document', () => {
    const request = withValue("it's");
    expect(renderCommand('echo {{body.v}}', request).script).to.equal('echo "${AGW_ARG_1}"');
    expect(renderCommand('echo "a {{body.v}} b"', request).script).to.equal('echo "a ${AGW_ARG_1} b"');
    expect(renderCommand("echo 'a {{body.v}} b'", request).script).to.equal(`echo 'a '"\${AGW_ARG_1}"' b'`);
    expect(renderCommand('cat <<EOF\na {{body.v}} b\nEOF', request).script).to.equal('cat <<EOF\na ${AGW_ARG_1} b\nEOF');
  });

  it('never puts a value into the script, whatever it holds', () => {
    const hostile = `$(touch x) \`touch x\` ' " \\ \nEOF\n# ; | && * -n a[$(touch x)]`;
    const rendered = renderCommand('echo {{body.v}} "{{body.v}}" \'{{body.v}}\'', withValue(hostile));
    expect(rendered.script).to.not.contain('touch');
    expect(Object.values(rendered.env)).to.deep.equal([hostile, hostile, hostile]);
  });

  it('keeps every character of a value but NUL, which no environment variable can hold', () => {
    const value = 'a\u0000b \u00e9 中文 🎉 \t\r\n\u0001\u007f';
    expect(renderCommand('echo {{body.v}}', withValue(value)).env.AGW_ARG_1).to.equal(value.replace('\u0000', ''));
  });

  it('refuses (throws) a token where no value may stand, as a second line of defence', () => {
    expect(() => renderCommand('echo x # {{body.v}}', withValue('y'))).to.throw(`{{body.v}} stands ${REFUSED.comment}`);
    expect(() => renderCommand('echo $(( {{body.v}} ))', withValue('1'))).to.throw(`{{body.v}} stands ${REFUSED.arithmetic}`);
  });

  it('refuses a value too large for an environment variable, naming the token, instead of failing to start the command', () => {
    const large = 'é'.repeat(MAX_ENV_STRING_BYTES / 2);
    expect(() => renderCommand('echo {{body.v}}', withValue(large))).to.throw(
      `the value of {{body.v}} is larger than the 128 KiB an environment variable can hold (${MAX_ENV_STRING_BYTES} bytes); the command was not run`,
    );
    const fits = 'x'.repeat(MAX_ENV_STRING_BYTES - 'AGW_ARG_1='.length - 1);
    expect(renderCommand('echo {{body.v}}', withValue(fits)).env.AGW_ARG_1).to.equal(fits);
  });
});

describe('commandTokenValues', () => {
  it('gives each token, in template order, the variable and the value renderCommand passes the command', () => {
    const template = 'git pull {{body.v}} && echo "{{query.q}}" {{body.missing}} {{body.v}}';
    const request = withValue('main\u0000; rm -rf /');
    const values = commandTokenValues(template, request);
    expect(values).to.deep.equal([
      { token: '{{body.v}}', variable: 'AGW_ARG_1', value: 'main; rm -rf /' },
      { token: '{{query.q}}', variable: 'AGW_ARG_2', value: 'query value' },
      { token: '{{body.missing}}', variable: 'AGW_ARG_3', value: '' },
      { token: '{{body.v}}', variable: 'AGW_ARG_4', value: 'main; rm -rf /' },
    ]);
    expect(Object.fromEntries(values.map((v) => [v.variable, v.value]))).to.deep.equal(renderCommand(template, request).env);
  });
});

describe('findTokenPlaces', () => {
  const accepted: Array<[string, string, string[]]> = [
    ['unquoted, single- and double-quoted', `echo {{body.v}} '{{body.v}}' "{{body.v}}"`, ['unquoted', 'single', 'double']],
    ['quotes of the other kind inside quotes', `echo "it's {{body.v}}" 'say "{{body.v}}"'`, ['double', 'single']],
    ['escaped quotes', `echo "a\\"{{body.v}}" \\' {{body.v}}`, ['double', 'unquoted']],
    ['a $(…) inside "…" restarts the quoting', `echo "$(echo '{{body.v}}' "{{body.v}}" {{body.v}})" {{body.v}}`, ['single', 'double', 'unquoted', 'unquoted']],
    ['nested $(…) with parentheses and a case statement', `x=$(case a in a) (echo {{body.v}});; esac); echo "{{body.v}}"`, ['unquoted', 'double']],
    ['backticks, also inside "…"', 'echo `echo {{body.v}}` "`echo \'{{body.v}}\'`"', ['unquoted', 'single']],
    [
      'the positional parameters of a shell reading its script from its input, after -s and --',
      'curl -fsSL https://get.example.com/install.sh | bash -s -- --version {{body.v}}; sudo sh -s -- -c {{body.v}} < ./deploy.sh',
      ['unquoted', 'unquoted'],
    ],
    [
      'after a backtick substitution of a one-word command, which ends at its closing backtick',
      'echo `date` {{body.v}}; x=`pwd` && echo "{{body.v}}"\n`hostname` {{body.v}}',
      ['unquoted', 'double', 'unquoted'],
    ],
    [
      '${…} words take the quoting around them',
      `echo \${x:-{{body.v}}} "\${x:-{{body.v}}}" \${x:+'{{body.v}}'} "\${x#{{body.v}}}"`,
      ['unquoted', 'double', 'single', 'double'],
    ],
    [
      'a here-document with an unquoted delimiter, and the command after it',
      'cat <<EOF > f\nline {{body.v}}\n"{{body.v}}" \'{{body.v}}\'\nEOF\necho {{body.v}}',
      ['heredoc', 'heredoc', 'heredoc', 'unquoted'],
    ],
    ['<<- with tab-indented terminator', 'cat <<-END\n\t{{body.v}}\n\tEND\necho {{body.v}}', ['heredoc', 'unquoted']],
    ['two here-documents on one line', "cat <<A <<'B'\n{{body.v}}\nA\nfixed\nB\necho {{body.v}}", ['heredoc', 'unquoted']],
    ['a here-document inside $(…)', 'x=$(cat <<EOF\n{{body.v}}\nEOF\n); echo "{{body.v}}"', ['heredoc', 'double']],
    [
      'a ${ …; } command substitution read as commands, with a { …; } group inside, and the quoting after it',
      'x=${ { git describe {{body.v}}; }; }; echo "{{body.v}}" ${x:-{{body.v}}}',
      ['unquoted', 'double', 'unquoted'],
    ],
    [
      "here-documents and here-strings that are a shell's data, not its script: after -c, after a script file, quoted",
      'sh -c \'read -r b; echo "$b"\' <<EOF\n{{body.v}}\nEOF\nbash ./deploy.sh <<< {{body.v}}; sh -ec \'cat\' <<< "{{body.v}}"',
      ['heredoc', 'unquoted', 'double'],
    ],
    [
      "pipes to a shell's -c string or to a script file, a shell after || or ;, and the here-document of an earlier line",
      'cat <<A\n{{body.v}}\nA\necho {{body.v}} | sh -c cat; echo {{body.v}} | ./x.sh; echo {{body.v}} || sh; echo {{body.v}}; cat <<B | sh\nfixed\nB',
      ['heredoc', 'unquoted', 'unquoted', 'unquoted', 'unquoted'],
    ],
    ['arguments after >&, 2>&1 and &> redirections', 'echo hi 2>&1 {{body.v}} >&2 "{{body.v}}" &>/dev/null {{body.v}}', ['unquoted', 'double', 'unquoted']],
    ['a here-string, pipes, && and a subshell', 'cat <<< {{body.v}} | tr a b && (echo "{{body.v}}") || echo {{body.v}}', ['unquoted', 'double', 'unquoted']],
    ['arithmetic elsewhere in the template', 'n=$((1 + 2)); (( n > 1 )) && echo "$n {{body.v}}"', ['double']],
    ['a comment before the token ends at its line', 'echo a # note\necho {{body.v}}', ['unquoted']],
    ['# inside a word is no comment', 'echo a#{{body.v}} ${#x} $#{{body.v}}', ['unquoted', 'unquoted']],
    ['a backslash inside single quotes is plain text', "echo '\\{{body.v}}'", ['single']],
    ['[ … ] (test) is no [[ … ]]', 'if [ "{{body.v}}" = x ]; then echo {{body.v}}; fi', ['double', 'unquoted']],
    ['a continued line', 'echo a \\\n  {{body.v}}', ['unquoted']],
    ['brackets in a quoted word', 'echo "x[{{body.v}}]" \'[{{body.v}}]\' x=[{{body.v}}]', ['double', 'single', 'unquoted']],
    [
      'assignments to names that only begin or end like an integer variable',
      'RANDOM_SEED={{body.v}} MY_OPTIND="{{body.v}}"; export XSECONDS={{body.v}}; echo RANDOM {{body.v}}',
      ['unquoted', 'double', 'unquoted', 'unquoted'],
    ],
    [
      'values after a fixed name= given to declaration builtins',
      'export X={{body.v}}; readonly P="$P:{{body.v}}"; f() { local y=\'{{body.v}}\'; declare -rx z={{body.v}}; }',
      ['unquoted', 'double', 'single', 'unquoted'],
    ],
    [
      'declaration and completion builtins only where they name the command',
      'echo declare {{body.v}} compgen -W {{body.v}}; git tag local "{{body.v}}"',
      ['unquoted', 'unquoted', 'double'],
    ],
    [
      'arguments that only look like assignments to an integer variable',
      'echo SECONDS={{body.v}}; docker run -e RANDOM={{body.v}} img; make SECONDS="{{body.v}}"; env OPTIND={{body.v}} cmd',
      ['unquoted', 'unquoted', 'double', 'unquoted'],
    ],
    [
      'values after a fixed name given to export or readonly, quoted or not, also after export -n',
      'export "FOO={{body.v}}" \'BAR\'={{body.v}} B\\AZ={{body.v}}; export -n X={{body.v}}; readonly Y={{body.v}}',
      ['double', 'unquoted', 'unquoted', 'unquoted', 'unquoted'],
    ],
    [
      'what read, getopts, printf and wait take that is no name',
      'read -r -p {{body.v}} -d "{{body.v}}" -t{{body.v}} x < {{body.v}}; read y <<< {{body.v}}; getopts {{body.v}} o {{body.v}}; printf -- {{body.v}} -v {{body.v}}; wait -n {{body.v}}',
      ['unquoted', 'double', 'unquoted', 'unquoted', 'unquoted', 'unquoted', 'unquoted', 'unquoted', 'unquoted', 'unquoted'],
    ],
    [
      'test and [ operands other than the name after -v or -R',
      '[ -n {{body.v}} ] && test {{body.v}} = -v && [ -f "{{body.v}}" ]',
      ['unquoted', 'unquoted', 'double'],
    ],
    [
      'assignments to variables no shell runs, and values that only look like assignments to BASH_ENV, PATH, LD_…',
      'IFS={{body.v}} CDPATH={{body.v}} GLOBIGNORE={{body.v}} MYPATH={{body.v}} LD={{body.v}}; echo PATH={{body.v}} trap {{body.v}}; docker run -e LD_PRELOAD={{body.v}} img; env FOO={{body.v}} OPTIND={{body.v}} cmd',
      ['unquoted', 'unquoted', 'unquoted', 'unquoted', 'unquoted', 'unquoted', 'unquoted', 'unquoted', 'unquoted', 'unquoted'],
    ],
    [
      "values after a shell's script, as its positional parameters, and words that only name eval, let, source or a shell",
      `sh -c 'echo "$1"' sh {{body.v}}; bash -eu ./deploy.sh {{body.v}}; /bin/sh -- x.sh "{{body.v}}"; echo eval {{body.v}} let {{body.v}} sh {{body.v}}; git tag source {{body.v}}`,
      ['unquoted', 'unquoted', 'double', 'unquoted', 'unquoted', 'unquoted', 'unquoted'],
    ],
    [
      'arguments of a fixed command name, after assignments, exec and other prefixes',
      'X=1 ./bin/deploy {{body.v}}; exec ./run.sh -- {{body.v}}; if ./check "{{body.v}}"; then echo {{body.v}}; fi',
      ['unquoted', 'unquoted', 'double', 'unquoted'],
    ],
    [
      "values after a shell's script or a command, past options that take an argument",
      'bash -o pipefail ./x.sh {{body.v}}; bash -o pipefail -c \'echo "$1"\' bash {{body.v}}; env -u HOME ./x {{body.v}}; exec -a name ./x {{body.v}}',
      ['unquoted', 'unquoted', 'unquoted', 'unquoted'],
    ],
    [
      'arguments of the command a wrapper runs, and its own operands',
      'nohup ./x {{body.v}}; timeout {{body.v}} ./deploy.sh {{body.v}}; nice -n 10 make {{body.v}}; sudo -u deploy ./x {{body.v}}; echo nohup {{body.v}}',
      ['unquoted', 'unquoted', 'unquoted', 'unquoted', 'unquoted', 'unquoted'],
    ],
    [
      "here-documents and pipes given to groups, subshells and loops that run no shell reading its input, and a group's earlier here-document",
      'while read -r l; do echo "$l"; done <<EOF\n{{body.v}}\nEOF\n{ sh -c \'cat\'; } <<< {{body.v}}; echo {{body.v}} | (cd /srv && cat); { sh; } <<A\nfixed\nA\necho {{body.v}} | { read -r x; }',
      ['heredoc', 'unquoted', 'unquoted', 'unquoted'],
    ],
    [
      'pipes to xargs that give what they carry to a command or a shell script as arguments, not into a -c string',
      'echo {{body.v}} | xargs -I{} echo {}; echo {{body.v}} | xargs sh -c \'make -- "$@"\' sh; echo {{body.v}} | xargs -I{} sh -c \'make -- "$1"\' sh {}; echo {{body.v}} | xargs -n1 ./deploy.sh',
      ['unquoted', 'unquoted', 'unquoted', 'unquoted'],
    ],
    [
      "find's own arguments and the arguments of the command -exec runs, also after sh -c's string",
      'find /srv -name {{body.v}} -exec grep -l -- {{body.v}} {} + -newer {{body.v}}; find . -execdir sh -c \'gzip -- "$1"\' sh {{body.v}} \\; -print',
      ['unquoted', 'unquoted', 'unquoted', 'unquoted'],
    ],
    [
      "awk's -v and -F values, operands after the program or after -f, and a value awk reads from the environment",
      "awk -v name={{body.v}} -F {{body.v}} '{ print name }' data.txt; gawk -f prog.awk {{body.v}} n={{body.v}}; X={{body.v}} awk 'BEGIN { print ENVIRON[\"X\"] }'",
      ['unquoted', 'unquoted', 'unquoted', 'unquoted', 'unquoted'],
    ],
    [
      'a here-document of eval "$(cat)" itself (words are expanded before redirections are made, so cat never reads it), of a later command, of eval without a substitution; values after sh -c\'s substituted string',
      'eval "$(cat)" <<EOF\n{{body.v}}\nEOF\neval "$(ssh-agent -s)"; cat <<EOF\n{{body.v}}\nEOF\neval "$cmd" <<< {{body.v}}; bash -c "$(cat ./deploy.sh)" sh {{body.v}}; echo hash {{body.v}}',
      ['heredoc', 'heredoc', 'unquoted', 'unquoted', 'unquoted'],
    ],
    [
      'here-documents and pipes given to a shell, group or loop whose shell has its own input redirected (< file, 0<, <<EOF)',
      'while read -r h; do bash -s < deploy.sh; done <<EOF\n{{body.v}}\nEOF\necho {{body.v}} | bash -s 0< deploy.sh; echo {{body.v}} | { sh; } < deploy.sh; echo {{body.v}} | sh <<A\nfixed\nA',
      ['heredoc', 'unquoted', 'unquoted', 'unquoted'],
    ],
    [
      'here-documents and pipes given to a shell or source that read a file, not their input: /dev/stdin as a positional parameter',
      'bash ./x.sh /dev/stdin <<EOF\n{{body.v}}\nEOF\necho {{body.v}} | sh -c \'cat "$1"\' sh /dev/stdin; source ./lib.sh <<< {{body.v}}',
      ['heredoc', 'unquoted', 'unquoted'],
    ],
    [
      "ssh's own option values (an identity file, a port), and a value on the input of a remote command that reads it as data",
      "ssh -i {{body.v}} -p {{body.v}} deploy@web1 uptime; printf '%s\\n' {{body.v}} | ssh host 'read -r ref && ./deploy \"$ref\"'; ssh host ./deploy <<EOF\n{{body.v}}\nEOF",
      ['unquoted', 'unquoted', 'unquoted', 'heredoc'],
    ],
    [
      'a value piped to a remote shell that runs a script file or a -c string, or to a remote command reading data',
      "echo {{body.v}} | ssh host 'cd /srv && sh ./deploy.sh'; echo {{body.v}} | ssh host 'sh -c \"./deploy\"'; echo {{body.v}} | ssh host tee /tmp/x; ssh host 'cat > /tmp/f' <<< {{body.v}}",
      ['unquoted', 'unquoted', 'unquoted', 'unquoted'],
    ],
    [
      "rsync, scp, flock and runuser -u arguments that are data: option values, local paths, a flock file and the command's arguments",
      'rsync -av --exclude {{body.v}} --exclude={{body.v}} ./src/{{body.v}} /srv/{{body.v}}; scp -P {{body.v}} ./{{body.v}} host:/tmp/; flock -w 5 /tmp/{{body.v}}.lock ./deploy {{body.v}}; flock {{body.v}} ./deploy; runuser -u deploy -- ./deploy {{body.v}}',
      ['unquoted', 'unquoted', 'unquoted', 'unquoted', 'unquoted', 'unquoted', 'unquoted', 'unquoted', 'unquoted', 'unquoted'],
    ],
    [
      "sed's file operands and values after --sandbox, and a container command's arguments after sh -c's string",
      'sed -E \'s/a/b/\' -- {{body.v}}; sed --sandbox "s/x/{{body.v}}/" f; docker exec app sh -c \'make -- "$1"\' sh {{body.v}}; kubectl exec pod -- ./deploy {{body.v}}; docker run --rm -e X={{body.v}} img ./deploy',
      ['unquoted', 'double', 'unquoted', 'unquoted', 'unquoted'],
    ],
    [
      'a here-document or pipe given to a function whose body (or a function it calls) runs no shell reading its input, and a here-document piped into a group that runs none, or written before a group',
      "f() { cat; }; f <<EOF\n{{body.v}}\nEOF\ng() { sh -c 'cat'; }; echo {{body.v}} | g; h() { g; }; echo {{body.v}} | h; r() { r; }; echo {{body.v}} | r\ncat <<EOF | {\n{{body.v}}\nEOF\n  cat\n}\ncat <<EOF; {\n{{body.v}}\nEOF\n  sh\n} < /dev/null",
      ['heredoc', 'unquoted', 'unquoted', 'unquoted', 'heredoc', 'heredoc'],
    ],
    [
      "values after an interpreter's program, as its arguments: after a script file, after python -c or -m, after -- or a first argument where perl and node still read options",
      "python3 script.py {{body.v}}; python3 -c 'import sys; print(sys.argv[1])' {{body.v}}; python3 -m http.server {{body.v}}; perl -e 'print $ARGV[0]' -- {{body.v}}; node -e 'console.log(process.argv[1])' x {{body.v}}; node ./app.js {{body.v}}; python3.11 -u -W ignore ./x.py --id {{body.v}}",
      ['unquoted', 'unquoted', 'unquoted', 'unquoted', 'unquoted', 'unquoted', 'unquoted'],
    ],
    [
      'a value an interpreter reads as data: from the environment, on the input of a script file, in a here-document given to a program given with -c',
      "X={{body.v}} python3 -c 'import os; print(os.environ[\"X\"])'; printf '%s\\n' {{body.v}} | python3 ./process.py; python3 -c 'import sys; print(sys.stdin.read())' <<EOF\n{{body.v}}\nEOF\necho {{body.v}} | xargs python3 ./x.py; echo {{body.v}} | ssh host 'python3 ./x.py'",
      ['unquoted', 'unquoted', 'heredoc', 'unquoted', 'unquoted'],
    ],
    [
      'the input of an interpreter given its program and no option that reads its input as code (-I, -u, perl -d:Module)',
      'echo {{body.v}} | python3 -I ./x.py; echo {{body.v}} | python3 -u ./x.py; echo {{body.v}} | perl -d:NYTProf ./x.pl; echo {{body.v}} | node -r ./x.js ./y.js',
      ['unquoted', 'unquoted', 'unquoted', 'unquoted'],
    ],
    [
      "SQL clients' data: psql's connection options and -v name=value, its database, mysql's user and database, sqlite3's database file, and a psql here-document after -f",
      "psql -h {{body.v}} -U {{body.v}} -d {{body.v}} -v ref={{body.v}} --set=n={{body.v}} -f ./q.sql; psql \"postgres://app@db/{{body.v}}\" -c 'select 1'; mysql -u {{body.v}} -D {{body.v}} app < ./dump.sql; sqlite3 ./{{body.v}}.db 'select 1'; psql -f ./q.sql <<EOF\n{{body.v}}\nEOF",
      ['unquoted', 'unquoted', 'unquoted', 'unquoted', 'unquoted', 'double', 'unquoted', 'unquoted', 'unquoted', 'heredoc'],
    ],
    [
      "other interpreters' arguments after their program, and subcommands that run no program of the value",
      'tclsh ./x.tcl {{body.v}}; pwsh -File ./x.ps1 {{body.v}}; deno run --allow-net ./main.ts {{body.v}}; bun install {{body.v}}; ruby ./x.rb {{body.v}}; php ./artisan {{body.v}}; lua ./x.lua {{body.v}}; docker exec app python3 manage.py migrate {{body.v}}',
      ['unquoted', 'unquoted', 'unquoted', 'unquoted', 'unquoted', 'unquoted', 'unquoted', 'unquoted'],
    ],
    [
      "git's options that take data, -c with a fixed value, arguments after the subcommand (its own -c), and git variables that are data",
      'git -C {{body.v}} --git-dir={{body.v}} --work-tree {{body.v}} log -c {{body.v}}; git commit -c {{body.v}}; GIT_AUTHOR_NAME={{body.v}} git commit -m {{body.v}}; git -c user.name=deploy pull origin {{body.v}}',
      ['unquoted', 'unquoted', 'unquoted', 'unquoted', 'unquoted', 'unquoted', 'unquoted', 'unquoted'],
    ],
    [
      'assignments to variables that only look like those programs run or load code from',
      'NODE_ENV={{body.v}} node app.js; PYTHONUNBUFFERED={{body.v}} python3 x.py; GIT_DIR_X={{body.v}} true; MYPAGER={{body.v}} true; env GIT_COMMITTER_NAME={{body.v}} git commit -m x',
      ['unquoted', 'unquoted', 'unquoted', 'unquoted', 'unquoted'],
    ],
    [
      "a container tool's arguments where it runs no command, though a word names an interpreter (docker logs mysql, docker restart node)",
      'docker logs mysql --tail {{body.v}}; docker restart node {{body.v}}; kubectl logs python --since={{body.v}}',
      ['unquoted', 'unquoted', 'unquoted'],
    ],
    [
      'git config reading, listing or removing a key, and the file it reads',
      'git config --get {{body.v}}; git config get user.{{body.v}}; git config --file {{body.v}} --list; git config --unset {{body.v}}',
      ['unquoted', 'unquoted', 'unquoted', 'unquoted'],
    ],
    [
      'name-taking builtins only where they name the command',
      'echo unset {{body.v}} read {{body.v}}; git tag mapfile {{body.v}}',
      ['unquoted', 'unquoted', 'unquoted'],
    ],
  ];
  for (const [label, template, expected] of accepted) {
    it(`places tokens: ${label}`, () => {
      expect(places(template)).to.deep.equal(expected);
    });
  }

  const refused: Array<[string, string, string]> = [
    ['inside a # comment', 'echo x # {{body.v}}', REFUSED.comment],
    ['inside a comment inside $(…)', 'x=$(echo a # {{body.v}}\n)', REFUSED.comment],
    ["in a here-document with a quoted delimiter: <<'EOF'", "cat <<'EOF'\n{{body.v}}\nEOF", REFUSED.quotedHeredoc],
    ['in a here-document with a quoted delimiter: <<"EOF"', 'cat <<"EOF"\n{{body.v}}\nEOF', REFUSED.quotedHeredoc],
    ['in a here-document with a quoted delimiter: <<\\EOF', 'cat <<\\EOF\n{{body.v}}\nEOF', REFUSED.quotedHeredoc],
    ['in a here-document with a partly quoted delimiter: <<-E"O"F', 'cat <<-E"O"F\n\t{{body.v}}\n\tEOF', REFUSED.quotedHeredoc],
    ['in a here-document delimiter', 'cat <<{{body.v}}\nx\n', REFUSED.delimiter],
    ["inside $'…'", "echo $'a {{body.v}}'", REFUSED.dollarSingle],
    ['inside $((…))', 'echo $(( {{body.v}} + 1 ))', REFUSED.arithmetic],
    ['inside $((…)) inside "…"', 'echo "$(( {{body.v}} ))"', REFUSED.arithmetic],
    ['inside ((…))', '(( x = {{body.v}} ))', REFUSED.arithmetic],
    ['inside for ((…))', 'for ((i = 0; i < {{body.v}}; i++)); do :; done', REFUSED.arithmetic],
    ['inside $[…]', 'echo $[ {{body.v}} ]', REFUSED.arithmetic],
    ['inside a $(…) inside arithmetic', 'echo $(( $(echo {{body.v}}) + 1 ))', REFUSED.arithmetic],
    ['quoted inside arithmetic', 'echo $(( "{{body.v}}" ))', REFUSED.arithmetic],
    ['inside [[ … ]]', '[[ {{body.v}} -eq 1 ]] && echo yes', REFUSED.doubleBracket],
    ['quoted inside [[ … ]]', '[[ "{{body.v}}" -eq 1 ]]', REFUSED.doubleBracket],
    ['inside an array subscript of an assignment', 'a[{{body.v}}]=1', REFUSED.subscript],
    ['inside a compound array assignment', 'a=([{{body.v}}]=1)', REFUSED.subscript],
    ['inside the subscript of ${a[…]}', 'echo "${a[{{body.v}}]}"', REFUSED.subscript],
    ['in an unquoted word that bash may read as a subscript', 'echo x[{{body.v}}]', REFUSED.subscript],
    ['inside ${x:offset}', 'echo "${x:{{body.v}}}"', REFUSED.substring],
    ['inside ${x:offset:length}', 'echo ${x:0:{{body.v}}}', REFUSED.substring],
    ['right after a backslash', 'echo \\{{body.v}}', REFUSED.backslash],
    ['right after a backslash inside "…"', 'echo "\\{{body.v}}"', REFUSED.backslash],
    ['right after a backslash in a here-document', 'cat <<EOF\n\\{{body.v}}\nEOF', REFUSED.backslash],
    ['right after a $', 'echo ${{body.v}}', REFUSED.dollar],
    ['as the name of a ${…} expansion', 'echo ${{{body.v}}}', REFUSED.name],
    ['after the name of a ${…} expansion', 'echo ${x{{body.v}}}', REFUSED.name],
    ['as the name of a ${!…} indirection', 'echo "${!{{body.v}}}"', REFUSED.name],
    ['assigned to RANDOM', 'RANDOM={{body.v}}', REFUSED.integerVariable],
    ['assigned to SRANDOM, quoted', 'SRANDOM="{{body.v}}"', REFUSED.integerVariable],
    ['appended to OPTIND, in a longer word', 'OPTIND+=x{{body.v}}', REFUSED.integerVariable],
    ['inside a $(…) assigned to HISTCMD', 'HISTCMD=$(echo {{body.v}})', REFUSED.integerVariable],
    ['assigned to SECONDS by export', 'export SECONDS={{body.v}}', REFUSED.integerVariable],
    ['assigned to OPTIND by declare -x, in a ${…} word', 'declare -x OPTIND=${u:-{{body.v}}}', REFUSED.integerVariable],
    ['assigned to RANDOM by command export', 'command export RANDOM={{body.v}}', REFUSED.integerVariable],
    ['assigned to OPTIND by local', 'f() { local OPTIND={{body.v}}; }', REFUSED.integerVariable],
    ['assigned to RANDOM before a command', 'RANDOM={{body.v}} :', REFUSED.integerVariable],
    ['in an array value of RANDOM', 'RANDOM=(1 {{body.v}})', REFUSED.integerVariable],
    ['assigned to OPTIND across a continued line', 'if true; then OPTIND=\\\n{{body.v}}; fi', REFUSED.integerVariable],
    ['as a name given to declare', 'declare {{body.v}}=1', REFUSED.declaredName],
    ['as a quoted name given to typeset', 'typeset "{{body.v}}"', REFUSED.declaredName],
    ['as an argument of export', 'x=1 export {{body.v}}', REFUSED.declaredName],
    ['as a later argument of local', 'f() { local x "a{{body.v}}"; }', REFUSED.declaredName],
    ['as an argument of readonly after an option', '! readonly -a {{body.v}}', REFUSED.declaredName],
    ['as the value of declare -n', 'declare -n r={{body.v}}', REFUSED.declaredValue],
    ['as the value of local -i', 'f() { local -i n="{{body.v}}"; }', REFUSED.declaredValue],
    ['as the value of typeset -ix', 'typeset -ix n=a{{body.v}}', REFUSED.declaredValue],
    ['as the word list of compgen -W', 'compgen -W {{body.v}}', REFUSED.completion],
    ['as a quoted word list of compgen -W, before --', 'echo; compgen -W "a {{body.v}}" -- a', REFUSED.completion],
    ['joined to compgen -W', 'compgen -o default -W{{body.v}}', REFUSED.completion],
    ['as a word list of complete -W', 'complete -W {{body.v}} cmd', REFUSED.completion],
    ['assigned to OPTIND by export, the name quoted', "export 'OPTIND'={{body.v}}", REFUSED.integerVariable],
    ['assigned to OPTIND by export -n', 'export -n OPTIND={{body.v}}', REFUSED.integerVariable],
    ['as a name given to typeset with a value', 'typeset {{body.v}}=1', REFUSED.declaredName],
    ['as a name given to \\export', '\\export {{body.v}}', REFUSED.declaredName],
    ['as a name given to "export"', '"export" {{body.v}}', REFUSED.declaredName],
    ["as a name given to ex''port", "ex''port {{body.v}}", REFUSED.declaredName],
    ['as a name given to export after time -p', 'time -p export {{body.v}}', REFUSED.declaredName],
    ['as a name given to export after coproc', 'coproc export {{body.v}}', REFUSED.declaredName],
    ['as a name given to readonly after command -p', 'command -p readonly {{body.v}}', REFUSED.declaredName],
    ['as the value of declare -a', 'declare -a x={{body.v}}', REFUSED.declaredValue],
    ['as the value of local -A', 'f() { local -A m="{{body.v}}"; }', REFUSED.declaredValue],
    ['as the value of export -a', 'export -a x={{body.v}}', REFUSED.declaredValue],
    ['as the value of readonly -ra', 'readonly -ra x=({{body.v}})', REFUSED.declaredValue],
    ['as a name given to unset', 'a=(1); unset {{body.v}}', REFUSED.variableName],
    ['as a later name given to unset -v', 'unset -v x "{{body.v}}"', REFUSED.variableName],
    ["as a name given to 'unset'", "'unset' {{body.v}}", REFUSED.variableName],
    ['as a name given to printf -v', 'printf -v {{body.v}} %s x', REFUSED.variableName],
    ['joined to printf -v', 'printf -v{{body.v}} %s x', REFUSED.variableName],
    ['as a name given to printf -v after time -p', 'time -p printf -v {{body.v}} %s x', REFUSED.variableName],
    ['as a name given to read', 'read {{body.v}}', REFUSED.variableName],
    ['as a later name given to read -r', 'read -r x {{body.v}} < in.txt', REFUSED.variableName],
    ['as the array name of read -a', 'read -ra {{body.v}} <<< "a b"', REFUSED.variableName],
    ['in read options an expansion completes', 'read -r{{body.v}} x', REFUSED.variableName],
    ['as the name of getopts', 'getopts ab {{body.v}}', REFUSED.variableName],
    ['as the name of wait -n -p', 'sleep 1 & wait -n -p {{body.v}}', REFUSED.variableName],
    ['as the name of wait -np, joined', 'wait -np{{body.v}} $!', REFUSED.variableName],
    ['as the name of [ -v ]', 'if [ -v {{body.v}} ]; then :; fi', REFUSED.variableName],
    ['as the name of test ! -v', 'test ! -v "{{body.v}}"', REFUSED.variableName],
    ['as the name of [ -R ]', '[ -R {{body.v}} ]', REFUSED.variableName],
    ['as the array name of mapfile', 'mapfile {{body.v}} < in.txt', REFUSED.arrayBuiltin],
    ['as the callback of mapfile -C', 'mapfile -C {{body.v}} -c 1 x < in.txt', REFUSED.arrayBuiltin],
    ['as the array name of readarray -t', 'readarray -t "{{body.v}}" < in.txt', REFUSED.arrayBuiltin],
    ["assigned to BASH_ENV before a command (the review's case)", 'BASH_ENV={{body.v}} ./deploy.sh', REFUSED.shellVariable],
    ['assigned to BASH_ENV by export', 'export BASH_ENV="{{body.v}}"; ./deploy.sh', REFUSED.shellVariable],
    ['assigned to ENV after another assignment', 'X=1 ENV={{body.v}} sh -i', REFUSED.shellVariable],
    ['assigned to PS4 by declare -x', 'declare -x PS4={{body.v}}; set -x', REFUSED.shellVariable],
    ['assigned to PS1 by local', 'f() { local PS1=a{{body.v}}; bash -i; }', REFUSED.shellVariable],
    ['assigned to PROMPT_COMMAND', 'PROMPT_COMMAND="{{body.v}}" bash -i', REFUSED.shellVariable],
    ['assigned to SHELLOPTS', 'SHELLOPTS={{body.v}} bash x.sh', REFUSED.shellVariable],
    ['assigned to BASHOPTS by export', 'export BASHOPTS={{body.v}}', REFUSED.shellVariable],
    ['appended to PATH', 'PATH="$PATH:{{body.v}}" make', REFUSED.shellVariable],
    ['assigned to PATH with +=', 'PATH+=:{{body.v}}', REFUSED.shellVariable],
    ['assigned to LD_PRELOAD', 'LD_PRELOAD={{body.v}} ./deploy', REFUSED.shellVariable],
    ['assigned to LD_LIBRARY_PATH by readonly', 'readonly LD_LIBRARY_PATH={{body.v}}', REFUSED.shellVariable],
    ['assigned to GCONV_PATH', 'GCONV_PATH={{body.v}} iconv -l', REFUSED.shellVariable],
    ['given to env as BASH_ENV', 'env -i BASH_ENV={{body.v}} ./deploy.sh', REFUSED.shellVariable],
    ['given to env as LD_AUDIT, quoted', 'env "LD_AUDIT={{body.v}}" ./deploy', REFUSED.shellVariable],
    ['given to env as an exported bash function', 'env "BASH_FUNC_make%%={{body.v}}" ./deploy.sh', REFUSED.shellVariable],
    ['as the action of trap', 'trap {{body.v}} EXIT', REFUSED.trap],
    ['inside a quoted trap action', 'trap "rm -f {{body.v}}" EXIT', REFUSED.trap],
    ['as a signal of command trap', "command trap 'cleanup' {{body.v}}", REFUSED.trap],
    ['as an argument of eval', 'eval {{body.v}}', REFUSED.evaluated],
    ['inside a quoted argument of eval, after a fixed one', 'eval "$cmd" "echo {{body.v}}"', REFUSED.evaluated],
    ['as an argument of let', 'let "n = {{body.v}} + 1"', REFUSED.evaluated],
    ['as the file of source', 'source {{body.v}}', REFUSED.evaluated],
    ['as the file of .', 'if true; then . ./lib/{{body.v}}.sh; fi', REFUSED.evaluated],
    ['as the value of an alias', 'alias ll={{body.v}}', REFUSED.evaluated],
    ['as the command name', '{{body.v}} --version', REFUSED.commandName],
    ['as part of the command name', './bin/{{body.v}} run', REFUSED.commandName],
    ['as the quoted command name after an assignment', 'X=1 "{{body.v}}"', REFUSED.commandName],
    ['as the command name after exec', 'exec {{body.v}}', REFUSED.commandName],
    ['as the command name after then', 'if true; then {{body.v}}; fi', REFUSED.commandName],
    ['in a command substitution that names the command', '$(printf %s {{body.v}}) arg', REFUSED.commandName],
    ['as the command string of sh -c', "sh -c 'echo {{body.v}}'", REFUSED.shellScript],
    ['as the command string of bash -ec, double-quoted', 'bash -ec "make {{body.v}}"', REFUSED.shellScript],
    ['as the script of /bin/bash', '/bin/bash {{body.v}} a b', REFUSED.shellScript],
    ['as an option of zsh', 'zsh -{{body.v}} x.sh', REFUSED.shellScript],
    ['as the command string of sh -c after env', 'env -i sh -c {{body.v}}', REFUSED.shellScript],
    ['as the command env runs', 'env FOO=1 {{body.v}}', REFUSED.commandName],
    ['as the string env -S splits into a command', 'env -S {{body.v}}', REFUSED.commandName],
    ['as the command string of bash -c after -o and its argument', 'bash -o pipefail -c {{body.v}}', REFUSED.shellScript],
    ['as the command string of bash -c after a group of options with -o', 'bash -eo pipefail -c "make {{body.v}}"', REFUSED.shellScript],
    ['as the command string of bash -c after -O and --rcfile', 'bash -O extglob --rcfile x -c {{body.v}}', REFUSED.shellScript],
    ['as the command env runs after -u and its name', 'env -u HOME {{body.v}}', REFUSED.commandName],
    ['as the command string of sh -c after env -C and its directory', 'env -C /tmp sh -c {{body.v}}', REFUSED.shellScript],
    ['as the command string of a shell env -S names', "env -S 'sh -c' {{body.v}}", REFUSED.shellScript],
    ['as the command name after exec -a and its name', 'exec -a name {{body.v}}', REFUSED.commandName],
    ['as the command nohup runs', 'nohup {{body.v}}', REFUSED.commandName],
    ['as the command timeout runs, after its options and duration', 'timeout -s KILL 5 {{body.v}}', REFUSED.commandName],
    ['as the command string of sh -c under nice -n', 'nice -n 10 sh -c {{body.v}}', REFUSED.shellScript],
    ['as the command xargs runs', 'xargs -n 1 {{body.v}}', REFUSED.commandName],
    ['as the command string of bash -c under sudo -u', 'sudo -u deploy bash -c "make {{body.v}}"', REFUSED.shellScript],
    ['as the command string of sh -c under /usr/bin/env and nohup', '/usr/bin/env nohup sh -c {{body.v}}', REFUSED.shellScript],
    // `${ …; }` and `${| …; }` run their text as commands in bash 5.3, ksh93 and mksh (dash refuses them).
    ['as the command of a ${ …; } command substitution', 'echo ${ {{body.v}}; }', REFUSED.commandName],
    ['as an argument of eval in a ${ …; } inside "…"', 'echo "tag: ${ eval {{body.v}}; }"', REFUSED.evaluated],
    ['as the command string of sh -c in a ${| …; } value substitution', 'echo ${| sh -c {{body.v}}; }', REFUSED.shellScript],
    ['as the command of a <(…) process substitution', 'diff <({{body.v}}) expected.txt', REFUSED.commandName],
    ['as the command string of sh -c in a >(…) process substitution after <', 'tee >(sh -c {{body.v}}) < <(cat f)', REFUSED.shellScript],
    ['as the command name after command --', 'command -- {{body.v}}', REFUSED.commandName],
    ['as an argument of eval after command -p --', 'command -p -- eval {{body.v}}', REFUSED.evaluated],
    ['as the command string of sh -c after time --', 'time -- sh -c {{body.v}}', REFUSED.shellScript],
    ['as the command name after exec --', 'exec -- {{body.v}}', REFUSED.commandName],
    ['in a here-document a shell reads as its script', 'sh <<EOF\ngit checkout {{body.v}}\nEOF', REFUSED.shellInput],
    ['in a here-document bash -s reads as its script, under sudo', 'sudo bash -s <<-EOF\n\tcd /srv && make "{{body.v}}"\n\tEOF', REFUSED.shellInput],
    ['in a here-string a shell reads as its script', 'bash <<< "deploy {{body.v}}"', REFUSED.shellInput],
    ['written into a pipe to a shell that reads its script from it', 'printf "git checkout %s\\n" {{body.v}} 2>&1 | grep -v x | bash -s', REFUSED.shellInput],
    ['in a here-document piped to a shell', 'cat <<EOF | sh\nmake {{body.v}}\nEOF', REFUSED.shellInput],
    ['as the command name in a function defined with the function keyword', 'function deploy { {{body.v}}; }; deploy', REFUSED.commandName],
    ['as the function name after the function keyword', 'function {{body.v}} { :; }', REFUSED.commandName],
    ['as an argument of eval in a named coprocess', 'coproc worker { eval {{body.v}}; }', REFUSED.evaluated],
    ['as the command name after a redirection of a numbered descriptor', '2>/dev/null {{body.v}} --quiet', REFUSED.commandName],
    ['as the command name exec runs after its redirections', 'exec 3>&1 2>>log {{body.v}}', REFUSED.commandName],
    ['in a here-document of a shell whose other descriptors are redirected', 'sh 2>&1 &>log <<EOF\n{{body.v}}\nEOF', REFUSED.shellInput],
    ['as the command string of rbash -c', 'rbash -c "make {{body.v}}"', REFUSED.shellScript],
    ['as the command string of yash -c under nohup', 'nohup yash -c {{body.v}}', REFUSED.shellScript],
    ['in a here-document bash reads through /dev/stdin', 'bash /dev/stdin <<EOF\nmake {{body.v}}\nEOF', REFUSED.shellInput],
    ['in a here-string sh reads through /dev/fd/0, with positional parameters after it', 'sh /dev/fd/0 a b <<< "echo {{body.v}}"', REFUSED.shellInput],
    ['written into a pipe to sh /dev/stdin', 'echo {{body.v}} | sh /dev/stdin', REFUSED.shellInput],
    ['in a here-document source reads through /dev/stdin', 'source /dev/stdin <<EOF\ndeploy {{body.v}}\nEOF', REFUSED.shellInput],
    ['in a here-string . reads through /dev/stdin', '. /dev/stdin <<< "deploy {{body.v}}"', REFUSED.shellInput],
    ['in a here-document given to a group whose shell reads it as its script', '{ sh; } <<EOF\nmake {{body.v}}\nEOF', REFUSED.shellInput],
    [
      'in a here-document given to a subshell whose shell reads it, after other commands',
      '(cd /srv && bash -s) <<EOF\nmake {{body.v}}\nEOF',
      REFUSED.shellInput,
    ],
    ['in a here-string given to nested groups over several lines', '{\n  { echo start; sh; }\n} 2>&1 <<< "make {{body.v}}"', REFUSED.shellInput],
    ['in a here-document given to a loop that runs a shell', 'while read -r host; do sh; done <<EOF\n{{body.v}}\nEOF', REFUSED.shellInput],
    ['written into a pipe to a subshell that runs a shell', 'printf "%s\\n" {{body.v}} | (cd /srv && bash)', REFUSED.shellInput],
    ['written into a pipe to a group that runs a shell', 'echo {{body.v}} | { cd /srv; sh -s; }', REFUSED.shellInput],
    ['written into a pipe to xargs running sh -c without its command string', 'echo {{body.v}} | xargs sh -c', REFUSED.shellInput],
    ["written into a pipe to xargs -I{} putting it into sh -c's string", "echo {{body.v}} | xargs -I{} sh -c 'make {}'", REFUSED.shellInput],
    ["in a here-string given to xargs -I % putting it into bash -c's string under sudo", "xargs -I % sudo bash -c 'make %' <<< {{body.v}}", REFUSED.shellInput],
    [
      "written into a pipe to xargs --replace=@ putting it into sh -c's string",
      "printf '%s\\n' {{body.v}} | xargs -n1 --replace=@ sh -c 'make @'",
      REFUSED.shellInput,
    ],
    ['in the command string of sh -c that find -exec runs', "find /srv -name '*.log' -exec sh -c 'gzip {{body.v}}' \\;", REFUSED.shellScript],
    ['as the command find -exec runs, after an earlier -exec', 'find . -name x -exec rm {} \\; -exec {{body.v}} {} +', REFUSED.commandName],
    ['in the command string of bash -c that sudo find -ok runs', 'sudo find /srv -ok bash -c "rm {{body.v}}" \';\'', REFUSED.shellScript],
    ['in an awk program, double-quoted', 'awk "{ print {{body.v}} }" data.txt', REFUSED.awkProgram],
    ['in an awk program, single-quoted, after -F and -v', 'awk -F, -v n=1 \'$1 == "{{body.v}}" { print $2 }\' data.csv', REFUSED.awkProgram],
    ['in the program of gawk --source', 'gawk --source="BEGIN { x = {{body.v}} }" data.txt', REFUSED.awkProgram],
    ['as the program file of awk -f', 'awk -f {{body.v}} data.txt', REFUSED.awkProgram],
    ['in the program of busybox awk after --', 'busybox awk -- \'{ print "{{body.v}}" }\'', REFUSED.awkProgram],
    ['in a here-document given to a group whose eval runs "$(cat)"', '{ eval "$(cat)"; } <<EOF\nmake {{body.v}}\nEOF', REFUSED.shellInput],
    ['written into a pipe to eval "$(cat)"', 'printf \'make %s\\n\' {{body.v}} | eval "$(cat)"', REFUSED.shellInput],
    ['written into a pipe to sh -c "$(cat)"', 'echo {{body.v}} | sh -c "$(cat)"', REFUSED.shellInput],
    ['as the path hash -p gives a command name', 'hash -p {{body.v}} make; make', REFUSED.commandName],
    ['as the library enable -f loads a builtin from', 'enable -f {{body.v}} deploy', REFUSED.commandName],
    ['as an operand of sh -s without --, which a value -c would turn into options', 'sh -s {{body.v}} < ./deploy.sh', REFUSED.shellScript],
    ['in a here-document given to sh -s with positional parameters after --', 'sh -s -- prod <<EOF\nmake {{body.v}}\nEOF', REFUSED.shellInput],
    ['in a here-string given to bash -s with a positional parameter', 'bash -s x <<< {{body.v}}', REFUSED.shellInput],
    ['written into a pipe to bash -s with a positional parameter', 'echo {{body.v}} | bash -s -- x', REFUSED.shellInput],
    ['as the argument of eval in a backtick substitution after another of a one-word command', 'echo `pwd` `eval {{body.v}}`', REFUSED.evaluated],
    ['in a backtick substitution nested in another with \\`', 'echo `echo \\`eval {{body.v}}\\``', REFUSED.nestedBackticks],
    [
      'after a backtick substitution nested in another inside "…", to the end of the template',
      'echo "`cd \\`dirname x\\`" x`; echo {{body.v}}',
      REFUSED.nestedBackticks,
    ],
    [
      'in a here-document given to a loop whose shell reads another descriptor from a file',
      'while read -r h; do sh 3< hosts.txt; done <<EOF\n{{body.v}}\nEOF',
      REFUSED.shellInput,
    ],
    ['in the remote command of ssh, quoted', 'ssh host "deploy {{body.v}}"', REFUSED.remoteCommand],
    ['in the remote command of ssh, as its own word', 'ssh host deploy {{body.v}}', REFUSED.remoteCommand],
    ['in the remote command of ssh after options, the destination and --', 'ssh -p 22 user@host -- deploy {{body.v}}', REFUSED.remoteCommand],
    ['in the remote command of ssh after options that follow the destination', 'ssh host -p 22 -l deploy deploy {{body.v}}', REFUSED.remoteCommand],
    ['at the start of the destination of ssh, where it could be an option', 'ssh -o BatchMode=yes {{body.v}} uptime', REFUSED.remoteCommand],
    ['in the value of ssh -o', 'ssh -o {{body.v}} host uptime', REFUSED.remoteCommand],
    ['in the value of ssh -o in the same word', 'ssh -oProxyCommand={{body.v}} host uptime', REFUSED.remoteCommand],
    ['as the configuration file of ssh -F', 'ssh -F {{body.v}} host uptime', REFUSED.remoteCommand],
    ['in a here-document ssh gives the remote shell as its script', 'ssh host <<EOF\ndeploy {{body.v}}\nEOF', REFUSED.shellInput],
    ['written into a pipe to ssh without a command', 'echo {{body.v}} | sudo -u deploy ssh -T host', REFUSED.shellInput],
    ['written into a pipe to a remote shell named as the command', 'echo {{body.v}} | ssh host sh', REFUSED.shellInput],
    ['in a here-string given to a remote bash -s', "ssh host 'bash -s' <<< {{body.v}}", REFUSED.shellInput],
    ['written into a pipe to a remote eval "$(cat)"', 'echo {{body.v}} | ssh host \'eval "$(cat)"\'', REFUSED.shellInput],
    ['written into a pipe to a remote sh -c "$(cat)"', 'echo {{body.v}} | ssh host \'sh -c "$(cat)"\'', REFUSED.shellInput],
    ['written into a pipe to ssh with a remote command not fixed', 'echo {{body.v}} | ssh host "$CMD"', REFUSED.shellInput],
    [
      'written into a pipe to a remote shell after another command, past -o and its argument',
      'echo {{body.v}} | ssh host "cd /srv; sh -o pipefail -s"',
      REFUSED.shellInput,
    ],
    ['written into a pipe to a remote shell after one that runs a script file', 'echo {{body.v}} | ssh host "sh ./a.sh && bash"', REFUSED.shellInput],
    ['in the string of rsync -e', "rsync -av -e 'ssh -p {{body.v}}' src host:dst", REFUSED.runsCommand],
    ['in the string of rsync -e bundled with other options', 'rsync -avze "ssh {{body.v}}" src host:dst', REFUSED.runsCommand],
    ['in the value of rsync --rsync-path', 'rsync --rsync-path={{body.v}} src host:dst', REFUSED.runsCommand],
    ['at the start of an rsync operand, where it could be an option', 'rsync -a {{body.v}} /backup/', REFUSED.runsCommand],
    ['in the remote path of rsync', 'rsync -a -- ./src/ host:{{body.v}}', REFUSED.runsCommand],
    ['in the remote path of scp', 'scp f host:/tmp/{{body.v}}', REFUSED.runsCommand],
    ['as the program of scp -S', 'scp -S {{body.v}} f host:/tmp', REFUSED.runsCommand],
    ['in the command of su -c', 'su -c {{body.v}}', REFUSED.runsCommand],
    ['in the command of su USER -c', 'su deploy -c "make {{body.v}}"', REFUSED.runsCommand],
    ["in an argument runuser without -u gives the user's shell", 'runuser deploy ./deploy.sh {{body.v}}', REFUSED.runsCommand],
    ['in the command of runuser -u … -c', 'runuser -u deploy -c "make {{body.v}}"', REFUSED.runsCommand],
    ['in the command of flock -c after its file', 'flock -w 5 /tmp/lock -c "make {{body.v}}"', REFUSED.runsCommand],
    ['as the command flock runs', 'flock /tmp/lock {{body.v}}', REFUSED.commandName],
    ['in the command of script -c', 'script -qc {{body.v}} /dev/null', REFUSED.runsCommand],
    ['in the command watch runs', 'watch -n 5 ./check {{body.v}}', REFUSED.runsCommand],
    ['among the inputs of parallel', 'parallel ./deploy ::: {{body.v}}', REFUSED.runsCommand],
    ['written into a pipe to parallel', 'echo {{body.v}} | parallel', REFUSED.shellInput],
    ['in the command string of sh -c that docker exec runs', 'docker exec app sh -c {{body.v}}', REFUSED.shellScript],
    ['in the command string of bash -c that kubectl exec runs', 'kubectl exec pod -- bash -lc "deploy {{body.v}}"', REFUSED.shellScript],
    ['as the command kubectl exec runs', 'kubectl exec pod -- {{body.v}}', REFUSED.commandName],
    ['in a sed script', 'sed "s/x/{{body.v}}/" f', REFUSED.sedScript],
    ['in a sed script given with -e after -n', 'sed -n -e \'s/a/b/p\' -e "s/x/{{body.v}}/p" f', REFUSED.sedScript],
    ['in a sed script given with --expression=', 'sed --expression="s/x/{{body.v}}/" f', REFUSED.sedScript],
    ['as the script file of sed -f', 'sed -f {{body.v}} f', REFUSED.sedScript],
    ['in a sed script after -i.bak', 'sed -i.bak "s/x/{{body.v}}/" f', REFUSED.sedScript],
    ['in a here-document given to a function that runs a shell', 'f() { sh; }; f <<EOF\ndeploy {{body.v}}\nEOF', REFUSED.shellInput],
    ['written into a pipe to a function, defined on an earlier line, that runs a shell', 'f() {\n  cd /srv && sh\n}\necho {{body.v}} | f', REFUSED.shellInput],
    ['in a here-string given to a function defined with function that runs bash -s', 'function g { bash -s; }; g <<< {{body.v}}', REFUSED.shellInput],
    [
      'written into a pipe to a function that calls a function, defined after it, that runs a shell',
      'f() { cd /srv && g; }\ng() { sh; }\necho {{body.v}} | f',
      REFUSED.shellInput,
    ],
    [
      'in a here-document piped into a group whose shell comes on a line after the body',
      'cat <<EOF | {\necho {{body.v}}\nEOF\n  cd /srv\n  sh\n}',
      REFUSED.shellInput,
    ],
    [
      'in a here-document piped into a loop whose shell comes after the body',
      'cat <<EOF | while read -r l; do\n{{body.v}}\nEOF\n  sh\ndone',
      REFUSED.shellInput,
    ],
    ['as the program of python3 -c', 'python3 -c {{body.v}}', REFUSED.interpreterProgram],
    ['inside the program of python3.11 -uc, bundled', `python3.11 -uc "print('{{body.v}}')"`, REFUSED.interpreterProgram],
    ['as the script file python3 runs', 'python3 {{body.v}} a b', REFUSED.interpreterProgram],
    ['as the script file python3 runs after options with values', 'python3 -W ignore -X dev {{body.v}}', REFUSED.interpreterProgram],
    ['as the module python3 -m runs', 'python3 -m {{body.v}}', REFUSED.interpreterProgram],
    ['inside the program of perl -e', 'perl -e "print \'{{body.v}}\'"', REFUSED.interpreterProgram],
    ['inside the program of perl -lne, bundled', "perl -lne '/{{body.v}}/ and print' f", REFUSED.interpreterProgram],
    ['where perl still reads options after -e (a value -e… adds code)', "perl -e 'print $ARGV[0]' {{body.v}}", REFUSED.interpreterProgram],
    ['after a fixed - where perl still reads options (a value e… makes -e…)', "perl -e 'print $ARGV[0]' -{{body.v}}", REFUSED.interpreterProgram],
    ['in the module perl -M loads', 'perl -MFoo={{body.v}} -e 1', REFUSED.interpreterProgram],
    ['as the program of node -e', 'node -e {{body.v}}', REFUSED.interpreterProgram],
    ['inside the program of nodejs --eval=', 'nodejs --eval="run({{body.v}})"', REFUSED.interpreterProgram],
    ['inside the program of node -pe, bundled', 'node -pe "{{body.v}}"', REFUSED.interpreterProgram],
    [
      'where node still reads options after -e (a value --eval=… is more code)',
      "node -e 'console.log(process.argv[1])' {{body.v}}",
      REFUSED.interpreterProgram,
    ],
    ['as the script file node runs', '/usr/bin/node {{body.v}}', REFUSED.interpreterProgram],
    ['as the program of ruby -e', 'ruby -e {{body.v}}', REFUSED.interpreterProgram],
    ['as the program of php -r', 'php -r {{body.v}}', REFUSED.interpreterProgram],
    ['as the program of lua -e', 'lua5.4 -e {{body.v}}', REFUSED.interpreterProgram],
    ['as the script file lua runs after -e', "lua -e 'x = 1' {{body.v}}", REFUSED.interpreterProgram],
    ['as the program of Rscript -e', 'Rscript -e {{body.v}}', REFUSED.interpreterProgram],
    ['in the command of pwsh -Command', 'pwsh -NoProfile -Command Write-Output {{body.v}}', REFUSED.interpreterProgram],
    ['in the command of powershell, its first operand', 'powershell ./x.ps1 {{body.v}}', REFUSED.interpreterProgram],
    ['as the program of osascript -e', 'osascript -e {{body.v}}', REFUSED.interpreterProgram],
    ['as the program of deno eval', 'deno eval {{body.v}}', REFUSED.interpreterProgram],
    ['as the script file bun run runs', 'bun run {{body.v}}', REFUSED.interpreterProgram],
    ['as the program of bun -e', 'bun -e {{body.v}}', REFUSED.interpreterProgram],
    ['as the script file tclsh runs', 'tclsh {{body.v}}', REFUSED.interpreterProgram],
    ['in the command of psql -c', `psql -h db -c "select '{{body.v}}'"`, REFUSED.interpreterProgram],
    ['in the command of psql --command=, after its database', `psql app --command="select '{{body.v}}'"`, REFUSED.interpreterProgram],
    ['as the file of psql -f', 'psql -f {{body.v}}', REFUSED.interpreterProgram],
    ['as the variable name of psql -v', 'psql -v {{body.v}} -f ./q.sql', REFUSED.interpreterProgram],
    ['as the output of psql -o (a |command)', 'psql -o {{body.v}} -c "select 1"', REFUSED.interpreterProgram],
    ['at the start of a psql word, where a value -c… is a command', 'psql -h db {{body.v}}', REFUSED.interpreterProgram],
    ['in the statements of mysql -e', `mysql -u app -e "select '{{body.v}}'" app`, REFUSED.interpreterProgram],
    ['in the statements of mariadb --execute=', `mariadb --execute="select '{{body.v}}'"`, REFUSED.interpreterProgram],
    ['in the SQL operand of sqlite3', 'sqlite3 ./x.db {{body.v}}', REFUSED.interpreterProgram],
    ['in the SQL operand of sqlite3 after a database not fixed', `sqlite3 "$DB" "select '{{body.v}}'"`, REFUSED.interpreterProgram],
    ['in the command of sqlite3 -cmd', 'sqlite3 -cmd {{body.v}} ./x.db', REFUSED.interpreterProgram],
    ['as the program of python3 -c under sudo', 'sudo -u deploy python3 -c {{body.v}}', REFUSED.interpreterProgram],
    ['as the program of python3 -c that docker exec runs', 'docker exec app python3 -c {{body.v}}', REFUSED.interpreterProgram],
    ['as the program of an interpreter env -S names', "env -S 'python3 -c' {{body.v}}", REFUSED.interpreterProgram],
    ['in a here-document python3 reads as its program', 'python3 <<EOF\nprint("{{body.v}}")\nEOF', REFUSED.shellInput],
    ['in a here-document python3 - reads as its program, with arguments after -', 'python3 - x <<EOF\nprint("{{body.v}}")\nEOF', REFUSED.shellInput],
    ['in a here-string perl reads as its program', 'perl <<< "print q({{body.v}})"', REFUSED.shellInput],
    ['written into a pipe to perl', 'echo {{body.v}} | perl', REFUSED.shellInput],
    ['written into a pipe to node reading /dev/stdin', 'echo {{body.v}} | node /dev/stdin', REFUSED.shellInput],
    ['written into a pipe to node given < /dev/stdin', 'echo {{body.v}} | node < /dev/stdin', REFUSED.shellInput],
    ['written into a pipe to sh given <&0', 'echo {{body.v}} | sh <&0', REFUSED.shellInput],
    ['written into a pipe to psql without -c or -f', 'echo {{body.v}} | psql -h db app', REFUSED.shellInput],
    ['in a here-document psql -f - reads', "psql -f - <<EOF\nselect '{{body.v}}';\nEOF", REFUSED.shellInput],
    ['in a here-document sqlite3 reads as its SQL', "sqlite3 ./x.db <<EOF\nselect '{{body.v}}';\nEOF", REFUSED.shellInput],
    ['in a here-document mysql reads as its statements', "mysql app <<EOF\nselect '{{body.v}}';\nEOF", REFUSED.shellInput],
    ['in a here-document tclsh reads as its script', 'tclsh <<EOF\nputs {{body.v}}\nEOF', REFUSED.shellInput],
    ['written into a pipe to xargs giving python3 its script file', 'echo {{body.v}} | xargs python3', REFUSED.shellInput],
    ["written into a pipe to xargs -I{} putting it into python3 -c's program", "echo {{body.v}} | xargs -I{} python3 -c 'print({})'", REFUSED.shellInput],
    ['in a here-document given to a group whose python3 reads it', '{ cd /srv; python3; } <<EOF\nprint("{{body.v}}")\nEOF', REFUSED.shellInput],
    [
      'in a here-document given to a function whose body runs python3 given no program',
      'f() { python3; }; f <<EOF\nprint({{body.v}})\nEOF',
      REFUSED.shellInput,
    ],
    ['written into a pipe to a subshell that runs node given no program', 'echo {{body.v}} | (cd /srv && node)', REFUSED.shellInput],
    ['written into a pipe to a remote psql given no -c or -f', 'echo {{body.v}} | ssh host psql app', REFUSED.shellInput],
    ['as the program of python3 -c in a container named python', 'docker exec python python3 -c {{body.v}}', REFUSED.interpreterProgram],
    ['as the command string of sh -c in a container named sh', 'docker exec sh sh -c {{body.v}}', REFUSED.shellScript],
    ['in a here-document given to a remote python3 over ssh', 'ssh host python3 <<EOF\nprint("{{body.v}}")\nEOF', REFUSED.shellInput],
    ['written into a pipe to a remote perl given no program', "echo {{body.v}} | ssh host 'cd /srv && perl'", REFUSED.shellInput],
    ['written into a pipe to python3 -i, which reads its input as code after the script', 'echo {{body.v}} | python3 -i ./script.py', REFUSED.shellInput],
    ['written into a pipe to python3 -ic, bundled', "echo {{body.v}} | python3 -ic 'x = 1'", REFUSED.shellInput],
    ['in a here-document python3 -i -m reads after the module', 'python3 -i -m json.tool <<EOF\nprint("{{body.v}}")\nEOF', REFUSED.shellInput],
    ['written into a pipe to node -i -e', 'echo {{body.v}} | node -i -e 1', REFUSED.shellInput],
    ['written into a pipe to node --interactive --eval', 'echo {{body.v}} | node --interactive --eval 1', REFUSED.shellInput],
    ['written into a pipe to perl -d, whose debugger runs what it reads', 'echo {{body.v}} | perl -d ./script.pl', REFUSED.shellInput],
    ['written into a pipe to lua -i after its script', 'echo {{body.v}} | lua -i ./x.lua', REFUSED.shellInput],
    ['written into a pipe to pwsh -NoExit', 'echo {{body.v}} | pwsh -NoExit -File ./x.ps1', REFUSED.shellInput],
    ['written into a pipe to a remote python3 -i', "echo {{body.v}} | ssh host 'python3 -i ./x.py'", REFUSED.shellInput],
    ['in a git -c value', 'git -c core.sshCommand={{body.v}} fetch', REFUSED.gitOption],
    ['in a git -c value, whatever the key (a value could end it and start another)', 'git -c user.name={{body.v}} commit -m x', REFUSED.gitOption],
    ['in a git -c alias', "git -c alias.x='!{{body.v}}' x", REFUSED.gitOption],
    ['in git --config-env', 'git --config-env=core.pager={{body.v}} log', REFUSED.gitOption],
    ['in git --exec-path=', 'git --exec-path={{body.v}} status', REFUSED.gitOption],
    ['as the git subcommand', 'git {{body.v}}', REFUSED.gitOption],
    ['in the value git config writes to core.sshCommand', 'git config core.sshCommand {{body.v}}', REFUSED.gitOption],
    ['in an alias git config --global writes', "git config --global alias.deploy '!{{body.v}}'", REFUSED.gitOption],
    ['in the value git config set writes, whatever the key', 'git config set user.name {{body.v}}', REFUSED.gitOption],
    ['as the key git config writes', 'git -C /srv config {{body.v}} x', REFUSED.gitOption],
    ['at the start of a word before the git subcommand, where it could be an option', 'git -C /srv {{body.v}} pull', REFUSED.gitOption],
    ['assigned to GIT_SSH_COMMAND', 'GIT_SSH_COMMAND={{body.v}} git fetch', REFUSED.shellVariable],
    ['given to env as NODE_OPTIONS', 'env NODE_OPTIONS={{body.v}} node app.js', REFUSED.shellVariable],
    ['assigned to PERL5OPT by export', 'export PERL5OPT={{body.v}}', REFUSED.shellVariable],
    ['assigned to PYTHONPATH', 'PYTHONPATH={{body.v}} python3 x.py', REFUSED.shellVariable],
    ['assigned to GIT_CONFIG_VALUE_0', 'GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0={{body.v}} git log', REFUSED.shellVariable],
    ['assigned to EDITOR', 'EDITOR="{{body.v}}" git commit', REFUSED.shellVariable],
    ['assigned to RUBYOPT by declare -x', 'declare -x RUBYOPT={{body.v}}', REFUSED.shellVariable],
    ['in the host of the ssh destination', 'ssh deploy@{{body.v}} uptime', REFUSED.remoteCommand],
    ['in the user of the ssh destination', 'ssh {{body.v}}@web1 uptime', REFUSED.remoteCommand],
    ['as the ssh destination after --', 'ssh -- {{body.v}} uptime', REFUSED.remoteCommand],
    ['as the user ssh -l takes', 'ssh -l {{body.v}} web1 uptime', REFUSED.remoteCommand],
    ['as the user ssh -l takes in the same word', 'ssh -l{{body.v}} web1 uptime', REFUSED.remoteCommand],
    ['in the host part of an scp operand', 'scp ./f deploy@{{body.v}}:/tmp/', REFUSED.runsCommand],
    ['in the host part of an rsync operand, quoted', 'rsync -a ./dist/ "{{body.v}}:/srv/"', REFUSED.runsCommand],
    ['in the host of sftp', 'sftp deploy@{{body.v}}', REFUSED.runsCommand],
  ];
  for (const [label, template, reason] of refused) {
    it(`refuses a token ${label}`, () => {
      expect(places(template)).to.deep.equal([`refused: ${reason}`]);
    });
  }

  it('refuses only the tokens in refused places', () => {
    expect(places('echo {{body.v}} # {{body.w}}\necho $(( {{body.v}} )) "{{body.w}}"')).to.deep.equal([
      'unquoted',
      `refused: ${REFUSED.comment}`,
      `refused: ${REFUSED.arithmetic}`,
      'double',
    ]);
  });

  it('keeps arithmetic open until its own closer, so an unbalanced parenthesis errs toward refusing', () => {
    expect(places('echo $(( ( 1 ) ) {{body.v}} ))')).to.deep.equal([`refused: ${REFUSED.arithmetic}`]);
  });
});
