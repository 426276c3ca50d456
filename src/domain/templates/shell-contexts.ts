import { TOKEN } from './template-tokens.js';

/**
 * Where a `{{token}}` of a command template stands, as `/bin/sh` will read the rendered script:
 * unquoted, inside "…", inside '…', or in the body of a here-document whose delimiter is unquoted.
 */
export type TokenContext = 'unquoted' | 'double' | 'single' | 'heredoc';

/** One token occurrence of a template, and where it stands (or why no value may stand there). */
export interface TokenPlace {
  readonly index: number;
  readonly length: number;
  /** The token as written, e.g. `{{body.a}}`. */
  readonly token: string;
  readonly source: string;
  readonly path: string;
  readonly place: { readonly context: TokenContext } | { readonly refused: string };
}

/** Why a token cannot stand where it stands; each completes "{{token}} stands …". */
export const REFUSED = {
  comment: 'inside a # comment: the command would never see the value',
  quotedHeredoc: "in a here-document whose delimiter is quoted (<<'EOF'), where nothing is expanded: the value would not arrive",
  delimiter: 'in a here-document delimiter, which must be fixed text',
  dollarSingle: "inside $'…', where the value could not arrive as itself: use '…' or \"…\"",
  arithmetic: 'inside arithmetic ($((…)), ((…)) or $[…]), which evaluates the value as an expression that can run commands',
  doubleBracket: 'inside [[ … ]], whose -eq, -lt… operands bash evaluates as arithmetic that can run commands: use [ … ]',
  subscript: 'inside an array subscript (or what bash may read as one: quote the word if it is none), which bash evaluates as arithmetic that can run commands',
  substring: 'inside ${name:offset:length}, whose offset and length bash evaluates as arithmetic that can run commands',
  backslash: 'right after a backslash, which would escape the reference to the value instead of the value',
  dollar: 'right after a $, which would join the reference to the value into another expansion',
  name: 'as the name of a ${…} expansion: a value cannot name a variable',
  integerVariable:
    'in an assignment to RANDOM, SRANDOM, OPTIND, HISTCMD or SECONDS, integer variables whose assigned value bash evaluates as arithmetic that can run commands',
  declaredName:
    'as (part of) a name given to declare, typeset, local, export or readonly, which bash reads as a name with a subscript it evaluates, an assignment or an option: give the value after a fixed name=',
  declaredValue:
    'as the value of declare, typeset or local -n or -i, or of an array declared with -a or -A, which bash evaluates as a variable name, as arithmetic or as an array assignment (…) that can run commands',
  completion: 'as an argument of compgen or complete, which expand a -W word list again and run -C and -F as commands',
  variableName:
    'as a variable name given to unset, read, getopts, printf -v, wait -p or test -v/-R, which bash reads as a name with a subscript it evaluates as arithmetic that can run commands',
  arrayBuiltin: 'as an argument of mapfile or readarray, which read an array name with a subscript bash evaluates and run -C as a command',
  shellVariable:
    'in an assignment (also by export or env) to a variable a shell or another program runs or loads code from (BASH_ENV, PATH, LD_PRELOAD, NODE_OPTIONS, GIT_SSH_COMMAND, EDITOR…): pass it under a name of your own (DEPLOY_REF={{…}} ./deploy.sh) (docs/triggers.md, "Places a token may not stand": variables)',
  directory:
    'as an argument of cd or pushd, the directory chroot makes the root, direnv exec loads the .envrc of (bash code) or chpst takes with -e (an envdir, as the first operand of envdir is), -/ or -C, also after fixed text (cd /srv/{{…}}): the commands after it run in (or from) the directory the value names, where a planted ./deploy.sh, Makefile or package.json (reached with ../) runs, as with make -C and git -C; choose among fixed directories (case {{…}} in app) cd /srv/app;; esac) and pass the value to the commands run there',
  trap: 'as an argument of trap, whose action the shell runs as a command when the signal comes (a value expanded into it becomes code)',
  evaluated:
    'as an argument of eval, let, source, . or alias, which run it (or the file it names, or the alias where it is used) as shell code or evaluate it as arithmetic that can run commands',
  commandName: 'as (part of) a command name: the value would choose the program that runs',
  nestedBackticks: 'inside a backtick substitution nested in another (`… \\`…\\` …`), whose text the shell reads as commands a second time: write $(…) instead',
  awkProgram:
    'in an awk program (its first operand, or what -e, -f… take), which awk runs as code (system() runs commands): pass the value with -v name={{…}} or in the environment (X={{…}} awk \'…ENVIRON["X"]…\')',
  shellInput:
    'in a here-document, here-string or pipe that a shell or another interpreter reads as its program (sh <<EOF, … | python3, ssh host <<EOF), or pip or uv as a requirements file (… | pip install -r -, whose lines may be options such as --index-url or a local project whose setup.py runs), or kubectl apply -f - or docker compose -f - as the manifest or compose file (whose pods or services it runs): it runs the value as code or installs what it names; give it a script and the value as an argument (bash ./deploy.sh {{…}}) (docs/triggers.md, "Places a token may not stand": input read as a program)',
  interpreterProgram:
    'in the program of an interpreter or what chooses it (python3 -c, node -e, psql -c, its script file, an option): the interpreter runs it as code; pass the value as an argument after the program (python3 ./x.py {{…}}, perl -e \'…\' -- {{…}}) (docs/triggers.md, "Places a token may not stand": interpreters)',
  remoteCommand:
    "in what ssh runs or connects through (the remote command, the destination, -l, -o, -F, -J): the remote shell or a ProxyCommand runs the value; pass it on the command's input (printf '%s\\n' {{…}} | ssh host 'read -r v && ./deploy \"$v\"') (docs/triggers.md, \"Places a token may not stand\": ssh)",
  runsCommand:
    'as an argument of a program that runs a command string through a shell or chooses the program it runs (su, watch, flock -c, rsync -e, scp -o): the value would run as code (docs/triggers.md, "Places a token may not stand": programs that run commands)',
  entrypoint:
    'after a shell, interpreter or package manager --entrypoint: in a docker option, at the start of the image or after an option the check does not know, where the value could become code it runs; pass it after a script (--entrypoint sh img ./deploy.sh {{…}}) (docs/triggers.md, "Places a token may not stand": containers)',
  gitOption:
    'where git reads the value as configuration or the repository it reads it from, as an option that runs a command, or as the subcommand (git -c, git -C, --git-dir, git config, --upload-pack; git push origin {{…}}, where a value --receive-pack=… runs): pass it after -- (git push origin -- {{…}}) (docs/triggers.md, "Places a token may not stand": git)',
  sedScript:
    'in a sed script (its first operand, or what -e, -f, --expression or --file take): GNU sed runs commands with e and s///e and writes files with w; give sed --sandbox (it refuses e, r and w) or keep the value out of the script',
  makeCode:
    'in make\'s command line (a variable REF={{…}}, --eval, -f, or a word a value could make one): make expands $(shell …) in it, also when it only exports it to a recipe; pass it in the environment, read as "$$REF" in the recipe (REF={{…}} make deploy) (docs/triggers.md, "Places a token may not stand": programs that run commands)',
  containerOption:
    "in a container option that chooses what the container runs or loads, what it may reach or a file it writes on the host (-w/--workdir, --env-file, -v/--volume, --mount, --cap-add, --security-opt, --device, --pid, --network, --cidfile…, or the directory after podman --rootfs, the container's whole filesystem; docker compose's -f, --project-directory and --env-file and docker stack deploy's -c, the compose file read; the manifest kubectl apply, create or replace -f or -k take), or in a word a value could make such an option (--{{…}}): a planted script or file would run, the container would lose its isolation, or a file of the value's choosing would be written; pass the value in the environment (-e REF={{…}}); to kubectl, after fixed text or its `--` (kubectl logs pod/{{…}}, kubectl exec pod -- ./deploy.sh {{…}}) (docs/triggers.md, \"Places a token may not stand\": containers)",
  positionalCode:
    "as a positional parameter of a shell -c string that runs it as code or as a command, or puts it (or a variable it copies it into) where a token is refused (sh -c '\"$@\"' sh {{…}}, sh -c 'eval \"$1\"' sh {{…}}, sh -c 'python3 -c \"$1\"' sh {{…}}, sh -c 'x=$1; $x' sh {{…}}, sh -c 'cd \"$1\" && make' sh {{…}}): pass it where the string uses it as data (sh -c './deploy.sh \"$1\"' sh {{…}})",
  copiedValue:
    'in a variable (x={{…}}, REF={{…}} before sh -c, docker\'s -e REF={{…}}, for x in {{…}}) or a positional parameter of the template (set -- {{…}}, a function\'s argument: f {{…}}) that the template or a shell -c string then puts, itself or through a copy, where a token is refused (x={{…}}; eval "$x", x={{…}}; cd "$x" && make, REF={{…}} sh -c \'eval "$REF"\'): the value reaches that place as the token would; use the variable only as data (REF={{…}} sh -c \'./deploy.sh "$REF"\')',
  rakeCode:
    'in rake\'s command line (a task name, an option such as --execute=… or -f, or a word a value could make one; rake reads options among its tasks): rake runs the task, the Ruby code or the file it names; pass the value in the environment (REF={{…}} rake deploy) or as a setting of a name of your own (rake deploy REF={{…}}), not as a task argument (deploy[{{…}}]: a line REF=… in it is a setting) (docs/triggers.md, "Places a token may not stand": programs that run commands)',
  rspecCode:
    'in rspec\'s command line (also bin/rspec, bundle exec rspec, spring rspec; and cucumber\'s, whose -r, -f, -o, -j and feature files are read alike): a spec file it loads (rspec spec/{{…}}, a value ../../tmp/x_spec.rb names a planted one), what -r/--require, -I, -O/--options, -P/--pattern, --default-path, -f/--format (a formatter required by name) or -o take, or a word a value could make an option (a value --require=…): rspec loads the Ruby they name; run fixed files and pass the value in the environment (REF={{…}} bin/rspec spec/deploy_spec.rb), or choose a line of a fixed file (rspec spec/deploy_spec.rb:{{…}}) (docs/triggers.md, "Places a token may not stand": interpreters)',
  tarOption:
    'in tar\'s command line where the value chooses a command it runs or the archive it reads: what --to-command, -I/--use-compress-program, --rsh-command, --rmt-command, -F/--info-script or --checkpoint-action take, an archive -f names that is no local path after fixed text holding a / (a value host:x makes tar run a remote shell, - its input), or a word a value could make an option (tar -xf ./a.tar {{…}}: a value --to-command=… runs for each file; tar reads options among its operands); pass operands after -- (tar -xf ./a.tar -- {{…}}) (docs/triggers.md, "Places a token may not stand": programs that run commands)',
  buildCode:
    'in the command line of mvn or gradle (also ./mvnw, ./gradlew) where the value names the build read or where it is found (-f/--file, -p/--project-dir, -b/--build-file, -c/--settings-file, -s/--settings, -I/--init-script, -g/--gradle-user-home…) or a property names a program run or where code is loaded from (-Dexec.executable=, -Dorg.gradle.java.home=, -Dmaven.repo.local=, -DargLine=…), or in a word a value could make one (mvn {{…}}: -f…, -D{{…}}, -D {{…}}): Maven and Gradle run the plugins and build code of that project (a value ../../tmp/x names a planted one); pass the value as a property of a name of your own (mvn deploy -Dref={{…}}, ./gradlew deploy -Pref={{…}}) (docs/triggers.md, "Places a token may not stand": programs that run commands)',
  railsOption:
    'in an option of a rails command that chooses a file it loads, runs or writes (-e/--environment: config/environments/<value>.rb, where a value ../../tmp/x names a planted file; server -c, -u, -P), at the start of a word where a value could be one (rails server {{…}}), or in a test file rails test loads (rails test test/{{…}}): choose the environment among fixed ones (case {{…}} in staging) bin/rails server -e staging;; esac) (docs/triggers.md, "Places a token may not stand": interpreters)',
  packageCode:
    'where a package manager reads the package, version or option it installs or runs (npx {{…}}, npm i pkg@{{…}}, npm run x {{…}}): its install scripts or program would run; pass script arguments after -- (npm run x -- {{…}}) (docs/triggers.md, "Places a token may not stand": package managers)',
  shellScript:
    'as an option or the script of a shell (sh, bash, dash, ash, ksh, mksh, zsh): -c runs its operand as code, and without -c the first operand is the file run; pass values after the script, as its positional parameters (sh -c \'…"$1"…\' sh {{…}})',
} as const;

/**
 * The variables bash gives the integer attribute from the start and evaluates an assigned value of
 * (`OPTIND=a[$(touch x)]` runs `touch` under bash, even from an expanded variable; SECONDS only
 * through `declare`). LINENO, BASHPID and the read-only UID, EUID, PPID do not evaluate.
 */
const INTEGER_VARIABLES = new Set(['RANDOM', 'SRANDOM', 'OPTIND', 'HISTCMD', 'SECONDS']);
/**
 * The variables whose value a shell (or the dynamic loader) runs as code, or that choose what runs:
 * bash expands BASH_ENV (command substitution included) and sources the file at the start of
 * every script, ENV likewise for an interactive sh; PS0, PS1, PS2 and PS4 are expanded as
 * prompts (PS4 at every line traced by set -x) and PROMPT_COMMAND run; SHELLOPTS and BASHOPTS
 * set a child bash's options (xtrace, and with it PS4); PATH chooses the program every later
 * command name runs; the loader loads the libraries LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT… name,
 * glibc the modules of GCONV_PATH; CDPATH chooses the directory `cd app` goes to, and OLDPWD the one `cd -` goes to,
 * where the later commands run (as a token in cd's operand would: a planted ./deploy.sh or Makefile). IFS and
 * GLOBIGNORE are not among them: they change how unquoted words split and which files a glob lists, never run anything.
 */
const SHELL_VARIABLES = new Set([
  'BASH_ENV',
  'ENV',
  'PS0',
  'PS1',
  'PS2',
  'PS4',
  'PROMPT_COMMAND',
  'SHELLOPTS',
  'BASHOPTS',
  'PATH',
  'GCONV_PATH',
  'CDPATH',
  'OLDPWD',
]);
/**
 * The variables other programs run as a command (through a shell: GIT_SSH_COMMAND, PAGER,
 * EDITOR, LESSOPEN…) or load code from (NODE_OPTIONS --require/--import, PERL5OPT -M, RUBYOPT
 * -r, PYTHONPATH, PYTHONSTARTUP, NODE_PATH, PERL5LIB…), and those that set git configuration
 * (GIT_CONFIG_PARAMETERS, GIT_CONFIG_KEY_n/VALUE_n, GIT_CONFIG_GLOBAL…), where core.sshCommand,
 * core.pager or an alias run commands. The list cannot be complete; docs/triggers.md says so.
 */
const PROGRAM_VARIABLES = new Set([
  'NODE_OPTIONS',
  'NODE_PATH',
  'PYTHONPATH',
  'PYTHONSTARTUP',
  'PYTHONHOME',
  'PERL5OPT',
  'PERL5LIB',
  'PERLLIB',
  'PERL5DB',
  'RUBYOPT',
  'RUBYLIB',
  'GIT_SSH',
  'GIT_SSH_COMMAND',
  'GIT_EXTERNAL_DIFF',
  'GIT_PAGER',
  'GIT_EDITOR',
  'GIT_SEQUENCE_EDITOR',
  'GIT_ASKPASS',
  'GIT_PROXY_COMMAND',
  'GIT_EXEC_PATH',
  'GIT_TEMPLATE_DIR',
  'GIT_CONFIG',
  'GIT_CONFIG_GLOBAL',
  'GIT_CONFIG_SYSTEM',
  'GIT_CONFIG_PARAMETERS',
  // The repository (and so the configuration: core.fsmonitor, core.hooksPath run commands) or work tree git works in, as git -C, --git-dir, --work-tree.
  'GIT_DIR',
  'GIT_COMMON_DIR',
  'GIT_WORK_TREE',
  'EDITOR',
  'VISUAL',
  'PAGER',
  'MANPAGER',
  'PSQL_PAGER',
  'SYSTEMD_PAGER',
  'LESSOPEN',
  'LESSCLOSE',
  'SSH_ASKPASS',
  'SUDO_ASKPASS',
  'PSQLRC',
  'BROWSER',
  // The JVM loads the agents and options these give; pip, uv and go fetch packages from the index or run the program they name.
  'JAVA_TOOL_OPTIONS',
  '_JAVA_OPTIONS',
  'JDK_JAVA_OPTIONS',
  'PIP_INDEX_URL',
  'PIP_EXTRA_INDEX_URL',
  'PIP_FIND_LINKS',
  'UV_INDEX',
  'UV_INDEX_URL',
  'UV_EXTRA_INDEX_URL',
  'UV_DEFAULT_INDEX',
  'UV_FIND_LINKS',
  // The requirements and constraints files pip and uv read as if given -r / -c (their lines may be options and local projects).
  'PIP_REQUIREMENT',
  'PIP_CONSTRAINT',
  'UV_CONSTRAINT',
  'UV_OVERRIDE',
  'UV_BUILD_CONSTRAINT',
  'GOFLAGS',
  'RUSTC_WRAPPER',
  // cargo runs these programs (CARGO_BUILD_… is its configuration's build.…); a target's runner and linker are matched below.
  'RUSTC_WORKSPACE_WRAPPER',
  'CARGO_BUILD_RUSTC_WRAPPER',
  'CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER',
  'RUSTC',
  'CARGO_BUILD_RUSTC',
  'RUSTDOC',
  'CARGO_BUILD_RUSTDOC',
  // kubectl runs the command of the exec credential plugin the kubeconfig names, on the host (as --kubeconfig).
  'KUBECONFIG',
  // docker's configuration directory (its cli-plugins run as docker's subcommands, its credential helpers at a pull), and
  // podman's containers.conf and storage.conf (the OCI runtime, conmon, hooks it runs), as --config and --runtime are.
  'DOCKER_CONFIG',
  'CONTAINERS_CONF',
  'CONTAINERS_CONF_OVERRIDE',
  'CONTAINERS_STORAGE_CONF',
  // The directories programs read their configuration from (git's ~/.gitconfig and $XDG_CONFIG_HOME/git/config, whose
  // core.fsmonitor and aliases run commands; npm's ~/.npmrc, its script-shell; pip's pip.conf, its index), `cd`'s
  // directory without an operand; and pip's configuration file itself.
  'HOME',
  'XDG_CONFIG_HOME',
  'PIP_CONFIG_FILE',
  // The code a Ruby or Python project runs: the Gemfile bundler loads (its Ruby runs), and the environment whose file Rails
  // and Rack load (config/environments/<value>.rb: a value ../../tmp/x names a planted file) or whose commands hatch runs.
  'BUNDLE_GEMFILE',
  'RAILS_ENV',
  'RACK_ENV',
  'HATCH_ENV',
  // The options mvn reads as if given on its command line (-f, -s) and the JVM options of mvn and gradle (-javaagent), the
  // user home whose init.d scripts gradle runs, and the JDK whose java they run.
  'MAVEN_ARGS',
  'MAVEN_OPTS',
  'GRADLE_OPTS',
  'GRADLE_USER_HOME',
  'JAVA_HOME',
  // The JVM options gradlew (and many another Java launcher) passes, the project directory whose .mvn/jvm.config mvn reads,
  // the JVM options mvn adds for debugging, the options mvnw passes as its command line's, and the URL mvnw fetches Maven from.
  'JAVA_OPTS',
  'MAVEN_BASEDIR',
  'MAVEN_DEBUG_OPTS',
  'MAVEN_CONFIG',
  'MVNW_REPOURL',
  // The options GNU tar reads before its command line's (--to-command=…), and the archive it reads without -f (host:path runs a remote shell).
  'TAR_OPTIONS',
  'TAPE',
  // The compose files and env files docker compose reads, as -f and --env-file name them.
  'COMPOSE_FILE',
  'COMPOSE_ENV_FILES',
  // The options rspec (and cucumber's rake task) read as their command line's (--require=…), the command kubectl diff runs
  // to compare and the editor kubectl edit runs.
  'SPEC_OPTS',
  'CUCUMBER_OPTS',
  'KUBECTL_EXTERNAL_DIFF',
  'KUBE_EDITOR',
]);
const isShellVariable = (name: string): boolean =>
  SHELL_VARIABLES.has(name) ||
  PROGRAM_VARIABLES.has(name) ||
  name.startsWith('LD_') ||
  /^GIT_CONFIG_(?:KEY|VALUE)_/.test(name) ||
  // cargo splits target.<triple>.runner at spaces and runs it with the program built (cargo run, cargo test), and runs the linker.
  /^CARGO_TARGET_[A-Z0-9_]+_(?:RUNNER|LINKER)$/.test(name) ||
  // npm (and pnpm, yarn 1) read any npm_config_… variable, in any case, as configuration: script-shell, node-options, registry.
  /^npm_config_/i.test(name);
/** Why a token may not be assigned to `name` (by name=, export, declare… or env), or undefined. */
const assignedRefusal = (name: string): string | undefined =>
  INTEGER_VARIABLES.has(name) ? REFUSED.integerVariable : isShellVariable(name) ? REFUSED.shellVariable : undefined;
/** Builtins whose arguments bash reads as names (with subscripts), assignments and options. */
const DECLARATIONS = new Set(['declare', 'typeset', 'local', 'export', 'readonly']);
/** Words after which the next word still names the command. */
const COMMAND_PREFIXES = new Set(['if', 'then', 'else', 'elif', 'do', 'while', 'until', 'time', '!', '{', 'command', 'builtin', 'coproc', 'exec']);
/** Builtins that run their arguments (or the file the first names, or an alias where it is used) as shell code, or evaluate them as arithmetic. */
const EVALUATING = new Set(['eval', 'let', 'source', '.', 'alias']);
/** Shells, by the last part of the name they are run under: their options and first operand are code or the file of code run. */
const SHELLS = new Set(['sh', 'bash', 'rbash', 'dash', 'ash', 'ksh', 'ksh93', 'mksh', 'lksh', 'oksh', 'pdksh', 'posh', 'yash', 'zsh']);
/** A command substitution in a word: what it runs may read the command's input (`eval "$(cat)"`). */
const SUBSTITUTION = /\$\(|`/;
/**
 * Names of the standard input as a file: a shell given one as its script, or source given one, reads its script from its input.
 * Another descriptor (`/dev/fd/3`) is counted as one too: a here-document or here-string on it (`python3 /dev/fd/3 3<<EOF`) is its script.
 */
const STANDARD_INPUT = /^(?:-|\/dev\/stdin|\/dev\/fd\/[0-9]+|\/proc\/self\/fd\/[0-9]+)$/;
/** awk, by the last part of the name; busybox awk is awk run by a wrapper. */
const AWKS = new Set(['awk', 'gawk', 'mawk', 'nawk', 'original-awk']);
/**
 * The options of awk (POSIX, gawk, mawk) that take a value: `code` when it is program text or a
 * file of it (-e/--source text, -f/--file, -i/--include, -E/--exec files, -l/--load a library),
 * `data` for a field separator, a -v assignment or mawk's -W option. Options not listed take none.
 */
const AWK_OPTIONS: Readonly<Record<string, 'code' | 'data'>> = {
  F: 'data',
  'field-separator': 'data',
  v: 'data',
  assign: 'data',
  W: 'data',
  f: 'code',
  file: 'code',
  e: 'code',
  source: 'code',
  E: 'code',
  exec: 'code',
  i: 'code',
  include: 'code',
  l: 'code',
  load: 'code',
};
/**
 * The options of ssh (OpenSSH) that take a value: `code` where the value runs a command or
 * chooses what ssh loads or runs (-o ProxyCommand=…/LocalCommand=…, -F a configuration file that
 * can hold them, -J a jump host ssh turns into a ProxyCommand, -I a PKCS#11 library), `data` for
 * the others (a port, a user, an identity file, a forwarding).
 */
const SSH_OPTIONS: Readonly<Record<string, 'code' | 'data'>> = {
  b: 'data',
  c: 'data',
  D: 'data',
  E: 'data',
  e: 'data',
  F: 'code',
  I: 'code',
  i: 'data',
  J: 'code',
  L: 'data',
  l: 'code',
  m: 'data',
  O: 'data',
  o: 'code',
  p: 'data',
  Q: 'data',
  R: 'data',
  S: 'data',
  W: 'data',
  w: 'data',
};
/**
 * Programs some of whose options take a command string (run through a shell) or the program to
 * run, by name: a token in that value is refused (runsCommand); their other arguments are data.
 * Short options may be bundled (`rsync -avze 'ssh -p 22'`).
 */
/**
 * make (GNU, by these names) and its options that take the next word: `code` where the value is
 * makefile text or chooses it (-f, -E/--eval, -I), `data` a directory or a file name. -j and -l
 * take a number only if one follows: flags here, so that the word after them is read as an operand.
 */
const MAKES = new Set(['make', 'gmake']);
const MAKE_OPTIONS: Readonly<Record<string, 'code' | 'data'>> = {
  '-f': 'code',
  '--file': 'code',
  '--makefile': 'code',
  '-E': 'code',
  '--eval': 'code',
  '-I': 'code',
  '--include-dir': 'code',
  '-C': 'code',
  '--directory': 'code',
  '-o': 'data',
  '--old-file': 'data',
  '--assume-old': 'data',
  '-W': 'data',
  '--what-if': 'data',
  '--new-file': 'data',
  '--assume-new': 'data',
};
/**
 * rake's options that take the next word (bin/rake, bundle exec rake, and `rails db:seed`…, the
 * tasks rails hands to rake): `code` where the value is Ruby code run or the file or directory
 * code is loaded from (-e, -p, -E, -r, -f, -I, -R), `data` otherwise. An option whose value is
 * optional (-j [N], -T [PATTERN]) takes the next word only when it does not look like an option,
 * so it is not here: the word after it is read as any other. Ruby's OptionParser reads
 * options anywhere among the words up to `--`; the other words are the tasks run (arguments in
 * `task[…]`) and NAME=value settings of rake's environment, which its tasks' commands inherit.
 */
const RAKE_OPTIONS: Readonly<Record<string, 'code' | 'data'>> = {
  '-e': 'code',
  '--execute': 'code',
  '-p': 'code',
  '--execute-print': 'code',
  '-E': 'code',
  '--execute-continue': 'code',
  '-r': 'code',
  '--require': 'code',
  '-f': 'code',
  '--rakefile': 'code',
  '-I': 'code',
  '--libdir': 'code',
  '-R': 'code',
  '--rakelibdir': 'code',
  '--rakelib': 'code',
  '-C': 'code',
  '--directory': 'code',
  '--suppress-backtrace': 'data',
};
/**
 * Maven (mvn, mvnw, mvnd) and Gradle (gradle, gradlew), by the name they are run under, and their options that take the next
 * word (or, for a long one, what follows `=`): `code` where the value names the build read — the pom or build script, whose
 * plugins and code run, the project directory (its pom.xml, .mvn/, build.gradle, settings.gradle), a settings file (the
 * repositories plugins come from), a toolchain, an init script, Gradle's user home (whose init.d scripts run) —, `data`
 * otherwise, `property` for a system property `name=value` (-D, --define, --system-prop: BUILD_CODE_PROPERTY). Their options
 * are whole words, never bundled (`-pl`, `-rf`, `-gs` are options of their own); a `-D` or `-P` word holds a property,
 * `-Dname=value`.
 */
const BUILD_TOOLS: Readonly<Record<string, 'mvn' | 'gradle'>> = {
  mvn: 'mvn',
  mvnw: 'mvn',
  mvnd: 'mvn',
  mvnDebug: 'mvn',
  gradle: 'gradle',
  gradlew: 'gradle',
};
const BUILD_TOOL_OPTIONS: Readonly<Record<'mvn' | 'gradle', Readonly<Record<string, 'code' | 'data' | 'property'>>>> = {
  mvn: {
    ...Object.fromEntries(
      ['-f', '--file', '-s', '--settings', '-gs', '--global-settings', '-t', '--toolchains', '-gt', '--global-toolchains'].map((o) => [o, 'code' as const]),
    ),
    ...Object.fromEntries(
      ['-pl', '--projects', '-rf', '--resume-from', '-l', '--log-file', '-T', '--threads', '-P', '--activate-profiles', '-b', '--builder'].map((o) => [
        o,
        'data' as const,
      ]),
    ),
    '-D': 'property',
    '--define': 'property',
  },
  gradle: {
    ...Object.fromEntries(
      [
        ...['-p', '--project-dir', '-b', '--build-file', '-c', '--settings-file', '-I', '--init-script', '-g', '--gradle-user-home'],
        ...['--include-build', '--project-cache-dir'],
      ].map((o) => [o, 'code' as const]),
    ),
    ...Object.fromEntries(
      [
        ...['-x', '--exclude-task', '--console', '--warning-mode', '-P', '--project-prop', '--max-workers', '--priority'],
        ...['-M', '--write-verification-metadata', '-F', '--dependency-verification', '--tests', '--configuration', '--dependency'],
        // The arguments the program of a run or bootRun task gets (`./gradlew bootRun --args=…`).
        '--args',
      ].map((o) => [o, 'data' as const]),
    ),
    '-D': 'property',
    '--system-prop': 'property',
  },
};
/**
 * The system properties of mvn and gradle (by the end of their name, in any case) whose value names a program they run or
 * where code is loaded from: an executable (exec.executable, gpg.executable, maven.compiler.executable…), a JDK or a home
 * (java.home, org.gradle.java.home, gradle.user.home, whose init.d scripts run), the JVM of a forked run or its options
 * (surefire's jvm, argLine, org.gradle.jvmargs, maven.surefire.debug: a -javaagent), the class exec:java runs
 * (exec.mainClass), the local repository plugins are loaded from (maven.repo.local), Maven's extensions
 * (maven.ext.class.path), the directory whose .mvn/extensions.xml is read and the JDKs Gradle's toolchains choose among.
 */
const BUILD_CODE_PROPERTY =
  /(?:executable|home|jvm|argline|jvmargs|mainclass|repo\.local|ext\.class\.path|multimoduleprojectdirectory|installations\.paths|surefire\.debug|failsafe\.debug)$/i;
const buildToolOf = (name: string): 'mvn' | 'gradle' | undefined => {
  const base = baseName(name);
  return Object.hasOwn(BUILD_TOOLS, base) ? BUILD_TOOLS[base] : undefined;
};
/**
 * GNU tar's options that take a value (the next word, the rest of a short one's word, or after `=` of a long one, which may
 * be abbreviated): `code` where tar runs it as a command (--to-command, -I/--use-compress-program, --rsh-command, --rmt-command, the
 * -F/--info-script run at each volume, --checkpoint-action=exec=…), `file` for the archive -f names (a value `host:path`
 * before any / makes tar run a remote shell on host, `-` is its input), `directory` for -C (where it extracts files: a
 * value chooses where they are written, as cd's directory chooses where commands run), `data` otherwise. Options are read
 * among the operands up to `--`; the first word may be a bundle without its dash (`tar xzf a.tgz`).
 */
const TAR_OPTIONS: Readonly<Record<string, 'code' | 'data' | 'file' | 'directory'>> = {
  '--to-command': 'code',
  '-I': 'code',
  '--use-compress-program': 'code',
  '--rsh-command': 'code',
  // The rmt program run (through the remote shell) for a remote archive.
  '--rmt-command': 'code',
  '-F': 'code',
  '--info-script': 'code',
  '--new-volume-script': 'code',
  '--checkpoint-action': 'code',
  '-f': 'file',
  '--file': 'file',
  '-C': 'directory',
  '--directory': 'directory',
  ...Object.fromEntries(
    [
      ...['-b', '--blocking-factor', '-g', '--listed-incremental', '-H', '--format', '-K', '--starting-file', '-L', '--tape-length'],
      ...['-N', '--newer', '--after-date', '-T', '--files-from', '-V', '--label', '-X', '--exclude-from', '--exclude', '--owner'],
      ...['--group', '--mode', '--mtime', '--strip-components', '--transform', '--xform', '--suffix', '--record-size', '--volno-file'],
    ].map((o) => [o, 'data' as const]),
  ),
};
const COMMAND_OPTIONS: Readonly<Record<string, { readonly code: readonly string[]; readonly data: readonly string[] }>> = {
  rsync: {
    code: ['-e', '--rsh', '--rsync-path'],
    data: [
      '-B',
      '-f',
      '-T',
      '-M',
      '--block-size',
      '--filter',
      '--temp-dir',
      '--remote-option',
      '--exclude',
      '--include',
      '--exclude-from',
      '--include-from',
      '--files-from',
      '--chmod',
      '--chown',
      '--usermap',
      '--groupmap',
      '--log-file',
      '--log-file-format',
      '--out-format',
      '--backup-dir',
      '--suffix',
      '--compare-dest',
      '--copy-dest',
      '--link-dest',
      '--partial-dir',
      '--timeout',
      '--contimeout',
      '--bwlimit',
      '--port',
      '--password-file',
      '--max-size',
      '--min-size',
      '--max-delete',
      '--modify-window',
      '--info',
      '--debug',
    ],
  },
  scp: { code: ['-S', '-o', '-F', '-J', '-D'], data: ['-c', '-i', '-l', '-P', '-X'] },
  // sftp -s names the server program the remote shell runs.
  sftp: { code: ['-S', '-o', '-F', '-J', '-D', '-s'], data: ['-B', '-b', '-c', '-i', '-l', '-P', '-R', '-X'] },
};
/** Programs that run a command string through a shell, or the program their arguments name, wherever a value stands among their arguments: su and runuser without -u (-c, -s, or arguments given to the user's shell), script (-c), watch (joins its arguments and runs them with sh -c), parallel (its command and its ::: inputs). */
const COMMAND_RUNNERS = new Set(['su', 'script', 'watch', 'parallel']);
/** Container tools whose arguments end in a command run in the container: a shell named among them reads its options and script as a shell does, and after a `--` the next word names the program. */
const CONTAINER_TOOLS = new Set([
  'docker',
  'docker-compose',
  'podman-compose',
  'podman',
  'kubectl',
  'nerdctl',
  'oc',
  'lxc-attach',
  'nsenter',
  'systemd-run',
  'machinectl',
]);
/** The container tools with subcommands, most of which run no command (`docker logs node`): an interpreter among their words is one only after a subcommand that runs one. */
const RUNNING_TOOLS = new Set(['docker', 'docker-compose', 'podman-compose', 'podman', 'kubectl', 'nerdctl', 'oc']);
/** The subcommands of those tools that run a command (`docker exec`, `docker run`, `docker compose run`, `kubectl debug`, `oc rsh`). */
const RUNNING_SUBCOMMANDS = new Set(['exec', 'run', 'debug', 'rsh', 'attach']);
/**
 * The tools whose run, create and exec (also docker compose run, docker-compose run, docker container run) take the options of
 * CONTAINER_RUN_VALUES and CONTAINER_RUN_FLAGS, then the image or container, then the program run in it.
 */
const PROGRAM_TOOLS = new Set(['docker', 'docker-compose', 'podman-compose', 'podman', 'nerdctl']);
const PROGRAM_SUBCOMMANDS = new Set(['run', 'create', 'exec']);
const baseName = (name: string): string => name.slice(name.lastIndexOf('/') + 1);
/**
 * An interpreter that runs a program given on its command line, in a file its first operand
 * names, or read from its input: which options give the program (their value is code: `-c`,
 * `-e`…) and which others take a value (the next word, or the rest of the word), and what its
 * operands are. A token in an option is refused unless it stands in a value listed as `data`
 * (or `assignment`: after the fixed `name=` of psql -v). Beyond that the lists only say where
 * the operands start: an option missing from them is taken for one without a value.
 */
interface Interpreter {
  /** Options that give the program: their value is program text, or the file (or module) of it run. */
  readonly code: readonly string[];
  /** Other options that take a value (loading code, -M, -r, --require, or data, -W, -h, -v). */
  readonly arguments: readonly string[];
  /** The values of `arguments` a token may stand in: `data`, or `assignment` (only after its fixed `name=`). */
  readonly data?: Readonly<Record<string, 'data' | 'assignment'>>;
  /**
   * Its operands: `script` the first is the file run (unless an option gave the program) and the
   * others its arguments; `command` the first starts a command made of every word after it
   * (powershell); `sql` the first is a database and the others SQL run (sqlite3); `data` none is
   * code (psql's database and user).
   */
  readonly operands: 'script' | 'command' | 'sql' | 'data';
  /** The code options after which every word is the program's argument (python -c and -m; pwsh -File): no more options. */
  readonly ends?: readonly string[];
  /** The options whose value and every word after it are code (pwsh -Command joins them). */
  readonly rest?: readonly string[];
  /** A code option runs its value and leaves the first operand the script (lua -e). */
  readonly keepsScript?: boolean;
  /** Options may follow operands (getopt permutes them: psql mydb -c …, sqlite3 db 'select 1' -cmd …). */
  readonly permutes?: boolean;
  /** Options are whole words, never bundled (-cmd, -Command), read in any case when `caseless`. */
  readonly words?: boolean;
  readonly caseless?: boolean;
  /**
   * Short options that take the rest of their word, if any, and no next word (perl -i.bak, -x),
   * or only digits after them (`digits`: perl -l, -0777), read in a bundle (`-lne`).
   */
  readonly attached?: Readonly<Record<string, 'rest' | 'digits'>>;
  /**
   * Subcommands named by the first operand, after which the next operand is the program (a file run, or its text: deno eval),
   * or, for those of `commands`, the next word names a command it runs (R CMD BATCH, R CMD INSTALL: R's tools or any program).
   */
  readonly subcommands?: readonly string[];
  readonly commands?: readonly string[];
  /** A word besides `--` after which every word is an argument of the program (R's --args). */
  readonly endsOptions?: string;
  /** A first word `+name` chooses the version run (julia +1.10 …, through juliaup): no operand. */
  readonly channels?: boolean;
  /**
   * Its long options taking no value, when it reads them with getopt_long, which takes an unambiguous prefix of a long
   * option's name for it (`julia --ev`, `--pri`, `--lo`): with those of `code` and `arguments`, every long option.
   */
  readonly abbreviated?: readonly string[];
  /**
   * Options that make it read its input as code once its program ran (python -i, node -i with -e,
   * lua -i, pwsh -NoExit) or as debugger commands that run code (perl -d, not -d:Module): its
   * input is its program then, whatever program it was given.
   */
  readonly interactive?: readonly string[];
}

const POWERSHELL_OPTIONS = {
  code: ['-f', '-file', '-e', '-ec', '-en', '-enc', '-encodedcommand'],
  rest: ['-c', '-co', '-com', '-comm', '-comma', '-comman', '-command'],
  arguments: [
    '-ex',
    '-ep',
    '-executionpolicy',
    '-wd',
    '-workingdirectory',
    '-of',
    '-outputformat',
    '-if',
    '-inputformat',
    '-w',
    '-windowstyle',
    '-config',
    '-configurationname',
    '-configurationfile',
    '-custompipename',
    '-settingsfile',
    '-psconsolefile',
  ],
  ends: ['-f', '-file'],
  interactive: ['-noe', '-noexit'],
  words: true,
  caseless: true,
} as const;

/**
 * julia's options whose value, a setting or a file written, is data: getopt_long gives each the next word when no `=`
 * follows (`julia --startup-file no x.jl`), so the script run is the word after it.
 */
const JULIA_SETTINGS = [
  ...['-p', '--procs', '-t', '--threads', '--gcthreads', '--heap-size-hint', '-O', '-g', '--banner', '--color', '--history-file'],
  ...['--startup-file', '--compile', '--check-bounds', '--depwarn', '--warn-overwrite', '--warn-scope', '--inline', '--polly'],
  ...['--math-mode', '--handle-signals', '--compiled-modules', '--pkgimages', '--sysimage-native-code', '--output-incremental'],
  ...['--task-metrics', '--permalloc-pkgimg', '--compress-sysimage', '--hard-heap-limit', '--heap-target-increment', '--trace-compile'],
  ...['--trace-dispatch', '--timeout-for-safepoint-straggler', '--target-sanitize', '--bind-to', '--output-o', '--output-ji'],
  ...['--output-bc', '--output-unopt-bc', '--output-asm', '--output-jit-bc', '--precompiled', '--compilecache'],
];
/**
 * julia's long options that take no next word: flags, and those whose value, optional, is only ever after `=` (`--project=…`).
 * With the others, its every long option, whose unambiguous prefixes getopt_long accepts (`--ev` is `--eval`).
 */
const JULIA_LONG_FLAGS = [
  ...['--version', '--help', '--help-hidden', '--quiet', '--interactive', '--lisp', '--image-codegen', '--rr-detach', '--strip-metadata'],
  ...['--strip-ir', '--trace-compile-timing', '--gc-sweep-always-full', '--experimental', '--project', '--code-coverage', '--track-allocation'],
  ...['--optimize', '--min-optlevel', '--debug-info', '--worker', '--trim', '--no-history-file', '--no-startup'],
];

/**
 * The long option getopt_long reads `written` as: itself, or the one long option whose name starts with it. Where several
 * do (getopt_long refuses the prefix then, but which options an interpreter has changes between its versions), one that
 * gives the program, else one that takes a value that is no data, else one that takes data: erring toward refusing.
 */
const unabbreviated = (spec: Interpreter, flags: readonly string[], written: string): string => {
  const options = [...spec.code, ...spec.arguments, ...flags].filter((option) => option.startsWith('--'));
  if (!written.startsWith('--') || written === '--' || options.includes(written)) return written;
  const matches = options.filter((option) => option.startsWith(written));
  return (
    matches.find((option) => spec.code.includes(option)) ??
    matches.find((option) => spec.arguments.includes(option) && spec.data?.[option] === undefined) ??
    matches.find((option) => spec.arguments.includes(option)) ??
    matches[0] ??
    written
  );
};

/** The interpreters, by the name their program is run under (interpreterOf maps the others: python3.11, nodejs, mariadb). */
const INTERPRETERS: Readonly<Record<string, Interpreter>> = {
  python: { code: ['-c', '-m'], arguments: ['-W', '-X', '--check-hash-based-pycs'], operands: 'script', ends: ['-c', '-m'], interactive: ['-i'] },
  // IPython reads its options (--profile=…, --InteractiveShellApp.exec_lines=… runs code) after its script too.
  ipython: { code: ['-c', '-m'], arguments: [], operands: 'script', ends: ['-c', '-m'], interactive: ['-i'], permutes: true },
  perl: {
    code: ['-e', '-E'],
    arguments: ['-I', '-M', '-m'],
    operands: 'script',
    attached: { i: 'rest', x: 'rest', d: 'rest', D: 'rest', C: 'digits', l: 'digits', '0': 'digits' },
    interactive: ['-d'],
  },
  ruby: {
    code: ['-e'],
    arguments: ['-r', '-I', '-C', '-E', '-F', '--encoding', '--external-encoding', '--internal-encoding', '--enable', '--disable'],
    operands: 'script',
    attached: { i: 'rest', x: 'rest', W: 'rest', T: 'digits', '0': 'digits' },
  },
  node: {
    code: ['-e', '--eval', '-p', '--print'],
    arguments: [
      '-r',
      '--require',
      '--import',
      '--loader',
      '--experimental-loader',
      '-C',
      '--conditions',
      '--env-file',
      '--env-file-if-exists',
      '--input-type',
      '--title',
      '--inspect-port',
      '--debug-port',
      '--redirect-warnings',
      '--diagnostic-dir',
      '--report-dir',
      '--report-directory',
      '--report-filename',
      '--report-signal',
      '--openssl-config',
      '--icu-data-dir',
      '--heapsnapshot-signal',
      '--unhandled-rejections',
      '--watch-path',
      '--experimental-config-file',
      '--disable-warning',
      '--localstorage-file',
    ],
    operands: 'script',
    subcommands: ['inspect'],
    interactive: ['-i', '--interactive'],
  },
  php: { code: ['-r', '-B', '-R', '-E', '-f', '-F'], arguments: ['-c', '-d', '-z', '-t', '-S'], operands: 'script' },
  lua: { code: ['-e'], arguments: ['-l'], operands: 'script', keepsScript: true, interactive: ['-i'] },
  Rscript: { code: ['-e'], arguments: [], operands: 'script' },
  // R reads its program from -e, -f/--file or its input, ignoring operands, and options anywhere before --args; R CMD runs the tool named.
  R: {
    code: ['-e', '-f', '--file'],
    arguments: ['-d', '--debugger', '-g', '--gui'],
    operands: 'data',
    permutes: true,
    subcommands: ['CMD'],
    commands: ['CMD'],
    endsOptions: '--args',
  },
  julia: {
    // -P/--post-boot: julia 0.6's -i -e.
    code: ['-e', '--eval', '-E', '--print', '-m', '--module', '-P', '--post-boot'],
    arguments: [...['-L', '--load', '-J', '--sysimage', '-C', '--cpu-target', '-H', '--home', '--machine-file', '--bug-report'], ...JULIA_SETTINGS],
    data: Object.fromEntries(JULIA_SETTINGS.map((option) => [option, 'data' as const])),
    operands: 'script',
    ends: ['-m', '--module'],
    interactive: ['-i', '--interactive'],
    channels: true,
    abbreviated: JULIA_LONG_FLAGS,
  },
  // rails runner CODE|FILE (r) evaluates its first operand as Ruby code or runs the file it names; rails console (c) and
  // dbconsole (db) read Ruby, or SQL whose client runs shell commands, from their input (RAILS_COMMANDS). -e names the
  // environment, whose file config/environments/ENV.rb rails loads (a value ../../x loads another).
  'rails runner': { code: [], arguments: ['-e', '--environment'], operands: 'script' },
  'rails console': { code: [], arguments: ['-e', '--environment'], operands: 'data' },
  pwsh: { ...POWERSHELL_OPTIONS, operands: 'script' },
  powershell: { ...POWERSHELL_OPTIONS, operands: 'command' },
  osascript: { code: ['-e'], arguments: ['-l', '-s'], operands: 'script' },
  tclsh: {
    code: [],
    arguments: ['-encoding', '-display', '-geometry', '-name', '-use', '-visual', '-colormap', '-class'],
    operands: 'script',
    words: true,
  },
  bun: {
    code: ['-e', '--eval', '-p', '--print'],
    arguments: ['-r', '--preload', '--require', '--import', '--cwd', '-c', '--config', '--env-file', '--tsconfig-override', '-d', '--define'],
    operands: 'script',
    subcommands: ['run', 'x', 'exec'],
  },
  deno: {
    code: [],
    arguments: ['-c', '--config', '--import-map', '--lock', '--cert', '--location', '--seed', '--preload', '--import', '--env-file'],
    operands: 'script',
    subcommands: ['eval', 'run', 'x'],
  },
  psql: {
    code: ['-c', '--command', '-f', '--file'],
    arguments: [
      '-d',
      '--dbname',
      '-h',
      '--host',
      '-p',
      '--port',
      '-U',
      '--username',
      '-v',
      '--set',
      '--variable',
      '-F',
      '--field-separator',
      '-R',
      '--record-separator',
      '-T',
      '--table-attr',
      '-L',
      '--log-file',
      '-o',
      '--output',
      '-P',
      '--pset',
    ],
    data: {
      '-d': 'data',
      '--dbname': 'data',
      '-h': 'data',
      '--host': 'data',
      '-p': 'data',
      '--port': 'data',
      '-U': 'data',
      '--username': 'data',
      '-F': 'data',
      '--field-separator': 'data',
      '-R': 'data',
      '--record-separator': 'data',
      '-T': 'data',
      '--table-attr': 'data',
      '-L': 'data',
      '--log-file': 'data',
      '-v': 'assignment',
      '--set': 'assignment',
      '--variable': 'assignment',
    },
    operands: 'data',
    permutes: true,
  },
  mysql: {
    code: ['-e', '--execute'],
    arguments: [
      '-u',
      '--user',
      '-h',
      '--host',
      '-P',
      '--port',
      '-D',
      '--database',
      '-S',
      '--socket',
      '--protocol',
      '--default-character-set',
      '--connect-timeout',
      '--pager',
      '--tee',
      '--init-command',
      '--defaults-file',
      '--defaults-extra-file',
      '--defaults-group-suffix',
      '--plugin-dir',
      '--default-auth',
      '--ssl-ca',
      '--ssl-cert',
      '--ssl-key',
      '--character-sets-dir',
      '--delimiter',
      '--load-data-local-dir',
    ],
    data: {
      '-u': 'data',
      '--user': 'data',
      '-h': 'data',
      '--host': 'data',
      '-P': 'data',
      '--port': 'data',
      '-D': 'data',
      '--database': 'data',
      '-S': 'data',
      '--socket': 'data',
      '--protocol': 'data',
      '--default-character-set': 'data',
      '--connect-timeout': 'data',
    },
    operands: 'data',
    permutes: true,
  },
  // pgcli (4.3.1+: -c/--command, -f/--file) and mycli, clients like psql and mysql; click reads options after operands too.
  pgcli: {
    code: ['-c', '--command', '-f', '--file'],
    arguments: ['-h', '--host', '-p', '--port', '-U', '--username', '-u', '--user', '-d', '--dbname', '-D', '--dsn', '--pgclirc', '--log-file'],
    data: {
      '-h': 'data',
      '--host': 'data',
      '-p': 'data',
      '--port': 'data',
      '-U': 'data',
      '--username': 'data',
      '-u': 'data',
      '--user': 'data',
      '-d': 'data',
      '--dbname': 'data',
    },
    operands: 'data',
    permutes: true,
  },
  mycli: {
    code: ['-e', '--execute', '--init-command'],
    arguments: [
      '-h',
      '--host',
      '-P',
      '--port',
      '-u',
      '--user',
      '-S',
      '--socket',
      '-D',
      '--database',
      '-p',
      '--password',
      '--myclirc',
      '--defaults-file',
      '--dsn',
      '-l',
      '--logfile',
      '--charset',
      '--ssl-ca',
      '--ssl-cert',
      '--ssl-key',
      '--login-path',
    ],
    data: {
      '-h': 'data',
      '--host': 'data',
      '-P': 'data',
      '--port': 'data',
      '-u': 'data',
      '--user': 'data',
      '-S': 'data',
      '--socket': 'data',
      '-D': 'data',
      '--database': 'data',
    },
    operands: 'data',
    permutes: true,
  },
  sqlite3: {
    code: [],
    arguments: ['-cmd', '-init', '-separator', '-newline', '-nullvalue', '-mmap', '-vfs', '-maxsize', '-escape', '-A'],
    data: { '-separator': 'data', '-newline': 'data', '-nullvalue': 'data', '-mmap': 'data', '-maxsize': 'data' },
    operands: 'sql',
    permutes: true,
    words: true,
  },
};
/** The interpreter a command name runs, by the last part of the name and without a version (python3.11, perl5.36, php8.2, lua5.4, tclsh8.6). */
const interpreterOf = (name: string): string | undefined => {
  const base = baseName(name);
  // A version (node20, node-20, python3.12, perl5.36.0, lua5.4, luajit-2.1) and a variant (python3-dbg, python3.12d, the
  // free-threaded python3.13t and python3.13td, perl5.36-x86_64-linux-gnu). tsx and ts-node run node with a TypeScript loader.
  const match =
    /^(python|pypy|ipython|perl|ruby|php|lua|luajit|tclsh|wish|julia|nodejs|node|tsx|ts-node(?:-esm|-script)?)(?:-?[0-9]+(?:\.[0-9]+)*)?(?:t?(?:-dbg|-debug|d|m|dm)|t|-[A-Za-z0-9_]+-linux-gnu[A-Za-z]*)?$/.exec(
      base,
    );
  if (match)
    return match[1] === 'tsx' || match[1]!.startsWith('ts-node')
      ? 'node'
      : (({ pypy: 'python', wish: 'tclsh', nodejs: 'node', luajit: 'lua' } as Record<string, string>)[match[1]!] ?? match[1]);
  if (base === 'mariadb') return 'mysql';
  if (base === 'pwsh-preview') return 'pwsh';
  return Object.hasOwn(INTERPRETERS, base) ? base : undefined;
};
/**
 * The commands rails has itself (Rails 7; those of RAILS_COMMANDS, new, plugin and app:template are read apart): any other
 * it hands to rake as a task, with the words after it (`rails db:seed …`, `rails deploy …`).
 */
const RAILS_OWN_COMMANDS = new Set([
  ...['generate', 'g', 'destroy', 'd', 'server', 's', 'test', 't', 'test:system', 'test:all', 'routes', 'notes', 'about', 'stats'],
  ...['middleware', 'initializers', 'version', 'secret', 'help', 'boot', 'restart', 'devcontainer', 'unused_routes', 'dev:cache'],
  ...['credentials:edit', 'credentials:show', 'credentials:diff', 'credentials:fetch', 'encrypted:edit', 'encrypted:show'],
  ...['secrets:edit', 'secrets:show', 'secrets:setup', 'db:system:change', '-h', '--help', '-v', '--version'],
]);
/** rails's own commands whose options choose no file loaded (a generator's options and operands are read as data). */
const RAILS_DATA_COMMANDS = new Set(['generate', 'g', 'destroy', 'd', 'help', 'version', '-h', '--help', '-v', '--version']);
/**
 * The options of rails's other own commands (server, test, routes, credentials:edit…), which load the application, that
 * take the next word: `code` where the value chooses a file loaded, run or written — -e/--environment
 * (config/environments/<value>.rb), server's -c/--config (the rackup file, Ruby), -u/--using (the Rack server, required
 * by its name) and -P/--pid (a file written) —, `data` otherwise. They read options among their operands.
 */
const RAILS_OPTIONS: Readonly<Record<string, 'code' | 'data'>> = {
  '-e': 'code',
  '--environment': 'code',
  '-c': 'code',
  '--config': 'code',
  '-u': 'code',
  '--using': 'code',
  '-P': 'code',
  '--pid': 'code',
  '-p': 'data',
  '--port': 'data',
  '-b': 'data',
  '--binding': 'data',
  '-n': 'data',
  '--name': 'data',
  '-s': 'data',
  '--seed': 'data',
  '--exclude': 'data',
  // rails routes -g/--grep: the pattern the routes listed match.
  '-g': 'data',
  '--grep': 'data',
};
/**
 * rspec's options that take the next word (Ruby's OptionParser: bundled, attached, abbreviated): `code` where the value names
 * Ruby loaded — a file required (-r), a load path (-I), an options file (-O, whose lines are options: --require), the
 * pattern or directory of the spec files loaded (-P, --default-path), a formatter (-f: one not built in is required by its
 * name) — or a file written (-o), `data` otherwise: an example's name, a tag, a seed.
 */
const RSPEC_OPTIONS: Readonly<Record<string, 'code' | 'data'>> = {
  '-r': 'code',
  '--require': 'code',
  '-I': 'code',
  '-O': 'code',
  '--options': 'code',
  '-P': 'code',
  '--pattern': 'code',
  '--default-path': 'code',
  '-f': 'code',
  '--format': 'code',
  '--formatter': 'code',
  '-o': 'code',
  '--out': 'code',
  '--deprecation-out': 'code',
  '-e': 'data',
  '--example': 'data',
  '-E': 'data',
  '--example-matches': 'data',
  '-t': 'data',
  '--tag': 'data',
  '--seed': 'data',
  '--order': 'data',
  '--exclude-pattern': 'data',
  '--failure-exit-code': 'data',
  '--error-exit-code': 'data',
  '--drb-port': 'data',
};
/**
 * cucumber's options that take the next word, as RSPEC_OPTIONS: `code` where the value names Ruby loaded — a file or directory
 * required (-r), a formatter (-f: one not built in is required by its name), a JRuby jar (-j) — or a file written (-o), `data`
 * otherwise: a tag, a scenario's name, a profile of the fixed cucumber.yml. A feature file or directory given loads the Ruby
 * of its directory (features/support, step definitions), as rspec's spec files are loaded.
 */
const CUCUMBER_OPTIONS: Readonly<Record<string, 'code' | 'data'>> = {
  '-r': 'code',
  '--require': 'code',
  '-f': 'code',
  '--format': 'code',
  '-o': 'code',
  '--out': 'code',
  '-j': 'code',
  '--jars': 'code',
  '-t': 'data',
  '--tags': 'data',
  '-n': 'data',
  '--name': 'data',
  '-e': 'data',
  '--exclude': 'data',
  '-p': 'data',
  '--profile': 'data',
  '-l': 'data',
  '--lines': 'data',
  '--retry': 'data',
  '--i18n-keywords': 'data',
};
/** The commands of rails (also bin/rails) that run code: read as the interpreters of INTERPRETERS named after them. */
const RAILS_COMMANDS: Readonly<Record<string, string>> = {
  runner: 'rails runner',
  r: 'rails runner',
  console: 'rails console',
  c: 'rails console',
  dbconsole: 'rails console',
  db: 'rails console',
};
/** git's options before its subcommand that take a value that is data: a namespace, a tree's attributes. */
const GIT_DATA_OPTIONS = new Set(['--namespace', '--super-prefix', '--attr-source', '--list-cmds']);
/**
 * git's options before its subcommand whose value (the next word) is configuration, whose values can be commands, or chooses the
 * repository git reads its configuration from (-C, --git-dir: a repository planted there runs its core.fsmonitor, its hooks)
 * or the work tree (where a relative core.hooksPath finds the hooks run).
 */
const GIT_CONFIG_OPTIONS = new Set(['-c', '--config-env', '-C', '--git-dir', '--work-tree']);
/** The options of git config that make it read, list or remove, writing no value. */
const GIT_CONFIG_READING =
  /^(?:-l|--list|--get|--get-all|--get-regexp|--get-urlmatch|--get-color|--get-colorbool|--unset|--unset-all|--remove-section|--rename-section)$/;
/** The options of git config that take the next word: a file, a type, a default, a comment. */
const GIT_CONFIG_VALUE_OPTIONS = new Set(['-f', '--file', '--blob', '-t', '--type', '--default', '--comment', '--value']);
/** The options git fetch and git pull (which fetches) both take with the next word as data. */
const GIT_FETCH_VALUES = ['--depth', '--deepen', '--shallow-since', '--shallow-exclude', '-j', '--jobs', '--negotiation-tip', '-o', '--server-option'];
/**
 * git subcommands some of whose options take a command git runs (rebase --exec, grep -O, difftool
 * -x, filter-branch's filters, send-email's --sendmail-cmd…), the program run at the other end of
 * the connection (--upload-pack, --receive-pack: for a local path or an ssh remote, a shell runs
 * it), configuration (clone -c, whose core.sshCommand runs) or the hooks' directory (--template):
 * `code`. git reads their options anywhere before `--`, so a value at the start of any other word
 * there could be one (`git push origin {{…}}`: a value `--receive-pack=…`). `values` are the
 * options that take the next word as data (`-b`, `--depth`…); an option missing from them is taken
 * for one without, and the word after it is refused where a value could be an option, erring
 * toward refusing. `runs`: the operand after which every word is a command (submodule foreach,
 * bisect run).
 */
const GIT_SUBCOMMANDS: Readonly<Record<string, { readonly code: readonly string[]; readonly values?: readonly string[]; readonly runs?: string }>> = {
  clone: {
    code: ['-u', '--upload-pack', '-c', '--config', '--template'],
    values: [
      '-b',
      '--branch',
      '-o',
      '--origin',
      '--depth',
      '--reference',
      '--reference-if-able',
      '--separate-git-dir',
      '-j',
      '--jobs',
      '--filter',
      '--shallow-since',
      '--shallow-exclude',
      '--server-option',
      '--bundle-uri',
      '--ref-format',
      '--revision',
    ],
  },
  fetch: { code: ['--upload-pack'], values: [...GIT_FETCH_VALUES, '--filter', '--refmap'] },
  pull: { code: ['--upload-pack'], values: [...GIT_FETCH_VALUES, '-s', '--strategy', '-X', '--strategy-option'] },
  'ls-remote': { code: ['-u', '--upload-pack'], values: ['--sort', '-o', '--server-option'] },
  push: { code: ['--receive-pack', '--exec'], values: ['--repo', '-o', '--push-option'] },
  archive: { code: ['--exec'], values: ['--format', '-o', '--output', '--prefix', '--remote', '--add-file', '--add-virtual-file', '--mtime'] },
  rebase: { code: ['-x', '--exec'], values: ['--onto', '-s', '--strategy', '-X', '--strategy-option', '-C', '--whitespace', '--empty'] },
  grep: {
    code: ['-O', '--open-files-in-pager'],
    values: ['-e', '-f', '-A', '-B', '-C', '--after-context', '--before-context', '--context', '--max-depth', '-m', '--max-count', '--threads'],
  },
  difftool: { code: ['-x', '--extcmd'], values: ['-t', '--tool'] },
  'filter-branch': {
    code: ['--setup', '--env-filter', '--tree-filter', '--index-filter', '--parent-filter', '--msg-filter', '--commit-filter', '--tag-name-filter'],
    values: ['--subdirectory-filter', '--original', '-d', '--state-branch'],
  },
  'send-email': { code: ['--sendmail-cmd', '--smtp-server', '--to-cmd', '--cc-cmd', '--header-cmd'] },
  init: { code: ['--template'], values: ['--separate-git-dir', '-b', '--initial-branch', '--object-format', '--ref-format', '--shared'] },
  submodule: { code: [], runs: 'foreach' },
  bisect: { code: [], runs: 'run' },
};
/** The options of those subcommands whose value is optional and only ever in the same word (`grep -O[pager]`): alone, they take no next word. */
const GIT_ATTACHED_ONLY = new Set(['-O', '--open-files-in-pager']);
/**
 * The options of docker run/create, podman run/create and docker compose run that take the next word
 * as their value (CONTAINER_RUN_FLAGS take none): read to find the image after an --entrypoint.
 */
const CONTAINER_RUN_VALUES = new Set([
  ...['-a', '-c', '-e', '-h', '-l', '-m', '-p', '-u', '-v', '-w'],
  ...['--add-host', '--annotation', '--attach', '--blkio-weight', '--blkio-weight-device', '--cap-add', '--cap-drop', '--cgroup-parent'],
  ...['--cgroupns', '--cgroups', '--cidfile', '--cpu-count', '--cpu-percent', '--cpu-period', '--cpu-quota', '--cpu-rt-period'],
  ...['--cpu-rt-runtime', '--cpu-shares', '--cpus', '--cpuset-cpus', '--cpuset-mems', '--detach-keys', '--device', '--device-cgroup-rule'],
  ...['--device-read-bps', '--device-read-iops', '--device-write-bps', '--device-write-iops', '--dns', '--dns-option', '--dns-search'],
  ...['--domainname', '--entrypoint', '--env', '--env-file', '--expose', '--gpus', '--group-add', '--hostname', '--ip', '--ip6', '--ipc'],
  ...['--isolation', '--kernel-memory', '--label', '--label-file', '--link', '--link-local-ip', '--log-driver', '--log-opt', '--mac-address'],
  ...['--memory', '--memory-reservation', '--memory-swap', '--memory-swappiness', '--mount', '--name', '--network', '--net', '--network-alias'],
  ...['--net-alias', '--oom-score-adj', '--pid', '--pids-limit', '--platform', '--publish', '--pull', '--restart', '--runtime', '--security-opt'],
  ...['--shm-size', '--stop-signal', '--stop-timeout', '--storage-opt', '--sysctl', '--tmpfs', '--user', '--userns', '--ulimit', '--uts'],
  ...['--volume', '--volume-driver', '--volumes-from', '--workdir', '--pod', '--secret', '--arch', '--os', '--variant', '--tz', '--umask'],
  ...['--unsetenv', '--pidfile', '--uidmap', '--gidmap', '--subuidname', '--subgidname', '--hostuser', '--requires', '--sdnotify'],
  ...['--seccomp-policy', '--timeout', '--authfile', '--creds', '--cert-dir', '--decryption-key', '--image-volume', '--init-path'],
  ...['--passwd-entry', '--group-entry', '--chrootdirs', '--cgroup-conf', '--conmon-pidfile', '--preserve-fds', '--retry', '--retry-delay'],
  ...['--personality', '--rdt-class', '--hosts-file', '--health-interval', '--health-retries', '--health-start-period', '--health-timeout'],
]);
/**
 * Options of docker, podman and nerdctl run, create and exec whose value chooses a file or directory the
 * container runs or loads code from (the working directory of `./deploy.sh`, an --env-file's LD_PRELOAD…, a
 * mounted host directory) or takes away its isolation (capabilities, seccomp and AppArmor, devices,
 * the host's PID, IPC, user or network namespace, the user and groups it runs as, --privileged=true), or names a
 * file the tool writes on the host (--cidfile, podman's --pidfile and --conmon-pidfile: a value names the file
 * created or overwritten, `../../home/deploy/.bashrc`): a token in such a value is refused.
 */
const CONTAINER_CHOOSING = new Set([
  ...['-w', '--workdir', '--env-file', '-v', '--volume', '--mount', '--volumes-from', '--cap-add', '--security-opt', '--device'],
  ...['--pid', '--ipc', '--userns', '--uts', '--network', '--net', '--cgroupns', '--privileged', '--runtime'],
  ...['-u', '--user', '--group-add', '--device-cgroup-rule', '--cidfile', '--pidfile', '--conmon-pidfile'],
]);
/**
 * The options of kubectl exec (and oc exec, oc rsh), its own and kubectl's global ones, that take the next word as their value
 * (KUBECTL_EXEC_FLAGS take none): kubectl reads them anywhere before `--`, after the pod too, and without `--` the first
 * other word after the pod is the program run in it (`kubectl exec pod timeout 5 …`). -f/--filename names the pod's file,
 * after which the first operand is the program. The others read to find that word; the kubeconfig (whose exec credential
 * plugin is a command kubectl runs on the host), the files kubectl writes and oc rsh's --shell (the program run in the pod) are
 * KUBECTL_EXEC_CHOOSING.
 */
const KUBECTL_EXEC_VALUES = new Set([
  ...['-c', '--container', '-f', '--filename', '--pod-running-timeout', '-n', '--namespace', '--context', '--cluster', '--user', '--kubeconfig'],
  ...['-s', '--server', '--token', '--as', '--as-group', '--as-uid', '--request-timeout', '--certificate-authority', '--client-certificate'],
  ...['--client-key', '--tls-server-name', '--cache-dir', '-v', '--v', '--vmodule', '--profile', '--profile-output', '--log-file', '--log-dir'],
  ...['--username', '--password', '--log-flush-frequency', '--shell', '--timeout'],
]);
const KUBECTL_EXEC_FLAGS = new Set([
  ...['-i', '-t', '-q', '-T', '-Q', '--stdin', '--tty', '--quiet', '--no-tty', '--insecure-skip-tls-verify', '--match-server-version'],
  ...['--warnings-as-errors', '--disable-compression'],
]);
/**
 * kubectl's subcommands that create or change resources from the manifests -f/--filename and -k/--kustomize name (a file, a
 * directory, a URL): the manifest chooses the images, commands, host paths and privileges of the pods that run.
 */
const KUBECTL_MANIFEST_SUBCOMMANDS = new Set(['apply', 'create', 'replace']);
/**
 * -f/--filename and -k/--kustomize, alone or last in a bundle after -R (`-Rf`, which the flag parser reads as -R -f), as a
 * whole word (`whole`), or with the value that follows in the same word, after `=` or not (`attached`: `-f/srv/…`, `-Rf=…`,
 * `--filename=…`; group 1 the value).
 */
const KUBECTL_MANIFEST_OPTION = { whole: /^(?:-R*[fk]|--filename|--kustomize)$/, attached: /^(?:-R*[fk]=?|--filename=|--kustomize=)([\s\S]*)$/ };
/**
 * kubectl patch's patch, alone or with its value in the word (`-p=…`, `--patch=…`, `--patch-file=…`): it changes the resource as
 * a manifest would (a container's image, command, host paths), and a token anywhere in its JSON or YAML can add such a field.
 */
const KUBECTL_PATCH_OPTION = { whole: /^(?:-p|--patch|--patch-file)$/, attached: /^(?:-p|--patch=|--patch-file=)/ };
/** kubectl run's --overrides (JSON merged into the pod it creates) and kubectl debug's --custom (a file of the debug container's spec), read as a patch is. */
const KUBECTL_SPEC_OPTION = { whole: /^--(?:overrides|custom)$/, attached: /^--(?:overrides|custom)=/ };
const KUBECTL_EXEC_CHOOSING = new Set(['--kubeconfig', '--cache-dir', '--profile-output', '--log-file', '--log-dir', '--shell']);
/** The options named, each `choosing` (a table of CONTAINER_TOOL_OPTIONS). */
const choosingOptions = (names: readonly string[]): Readonly<Record<string, 'choosing'>> => Object.fromEntries(names.map((name) => [name, 'choosing']));
/** docker's, podman's and nerdctl's own options of CONTAINER_TOOL_OPTIONS (each tool rejects the others'). */
const CONTAINER_TOOL_GLOBAL = choosingOptions([
  ...['--config', '--runtime', '--conmon', '--hooks-dir', '--network-cmd-path', '--module', '--root', '--runroot', '--imagestore'],
  ...['--storage-opt', '--cni-config-dir', '--volumepath', '--cni-path', '--cni-netconfpath', '--data-root'],
]);
/**
 * Options of container tools whose value chooses what runs or where: `choosing`, a token anywhere in the value is refused;
 * `env`, a NAME=value the program run gets (as docker's -e). Of docker, podman and nerdctl themselves, before their subcommand:
 * docker's --config (the directory whose cli-plugins/docker-compose runs at `docker compose`, and whose config.json names the
 * credential helpers run), podman's OCI runtime, conmon, hooks, network and storage (whose images and containers.conf module
 * choose what runs), nerdctl's CNI plugins and data root. Of nsenter, systemd-run and lxc-attach, before the program: the
 * directory it runs in or the root it sees (a planted ./deploy.sh, as with cd and chroot), the process whose namespaces it
 * enters, the user it runs as, systemd-run's unit properties (ExecStartPre=, WorkingDirectory=, Environment=… run or
 * place it) and lxc-attach's container configuration (whose hooks run on the host).
 */
const CONTAINER_TOOL_OPTIONS: Readonly<Record<string, Readonly<Record<string, 'choosing' | 'env'>>>> = {
  docker: CONTAINER_TOOL_GLOBAL,
  podman: CONTAINER_TOOL_GLOBAL,
  nerdctl: CONTAINER_TOOL_GLOBAL,
  nsenter: choosingOptions(['-w', '--wd', '-r', '--root', '-S', '--setuid', '-G', '--setgid', '-t', '--target', '-W', '--wdns']),
  'systemd-run': {
    ...choosingOptions([
      ...['-p', '--property', '--path-property', '--socket-property', '--timer-property', '--working-directory'],
      ...['--uid', '--gid', '-M', '--machine', '-H', '--host'],
    ]),
    '-E': 'env',
    '--setenv': 'env',
  },
  'lxc-attach': { '-P': 'choosing', '--lxcpath': 'choosing', '-f': 'choosing', '--rcfile': 'choosing', '-v': 'env', '--set-var': 'env' },
};
/** Options of docker, podman and nerdctl themselves that take no value (`docker --debug logs compose`: logs is the subcommand). */
const CONTAINER_TOOL_GLOBAL_FLAGS = new Set(['-D', '--debug', '--tls', '--tlsverify', '--remote', '-r', '--noout', '--insecure', '--debug-full']);
/**
 * The options of docker compose (docker-compose, podman compose…) before its subcommand that take the next word: `choosing`
 * where the value names the compose file read (-f/--file: the images, host directories mounted, privileges and commands of
 * every service, or `-` for the input), the project directory (whose compose.yaml and .env are read) or an env file (whose
 * COMPOSE_FILE, COMPOSE_PROFILES… choose the file too, and whose variables the file interpolates), `data` otherwise.
 */
const COMPOSE_OPTIONS: Readonly<Record<string, 'choosing' | 'data'>> = {
  '-f': 'choosing',
  '--file': 'choosing',
  '--project-directory': 'choosing',
  '--env-file': 'choosing',
  '-p': 'data',
  '--project-name': 'data',
  '--profile': 'data',
  '--ansi': 'data',
  '--progress': 'data',
  '--parallel': 'data',
  // podman-compose's: the podman it runs.
  '--podman-path': 'choosing',
};
/** Options of kubectl's other subcommands (logs, get, rollout…) that take the next word as their value, besides KUBECTL_EXEC_VALUES. */
const KUBECTL_VALUES = new Set([
  ...KUBECTL_EXEC_VALUES,
  ...['--tail', '--since', '--since-time', '-l', '--selector', '-o', '--output', '--field-selector', '--replicas', '--image', '--to-revision'],
  ...['--sort-by', '--template', '-L', '--label-columns', '--max-log-requests', '--limit-bytes', '--grace-period', '--type', '--revision'],
]);
const CONTAINER_RUN_FLAGS = new Set([
  ...['-d', '-i', '-t', '-P', '-q', '-T', '--detach', '--interactive', '--tty', '--publish-all', '--quiet', '--rm', '--init', '--privileged'],
  ...['--read-only', '--sig-proxy', '--no-healthcheck', '--oom-kill-disable', '--disable-content-trust', '--use-api-socket', '--no-deps'],
  ...['--service-ports', '--use-aliases', '--build', '--remove-orphans', '--no-TTY', '--replace', '--no-hosts', '--read-only-tmpfs', '--http-proxy'],
  ...['--env-host', '--rmi', '--tls-verify', '--systemd', '--pull-always', '--quiet-pull'],
]);
/**
 * Why a token in the value of a container tool's -e/--env (NAME=value) is refused, or undefined: the program in the
 * container reads NAME as it would outside (`-e NODE_OPTIONS={{…}}`). `known` when the word is surely the tool's
 * option value (after an --entrypoint, where its options are read): a token at its start could name the variable.
 */
const containerEnvRefusal = (literal: Literal, known: boolean): string | undefined => {
  if (literal.whole) return undefined;
  const name = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(literal.text)?.[1];
  if (name === undefined) return known && !literal.text.includes('=') ? REFUSED.shellVariable : undefined;
  return isShellVariable(name) ? REFUSED.shellVariable : undefined;
};
/** What an --entrypoint value runs, when it is a shell or an interpreter (or a JSON array, podman's form, of one: uncertain). */
const entrypointOf = (value: string): NonNullable<NonNullable<CommandState['container']>['entrypoint']> | undefined => {
  if (value.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(value);
      if (Array.isArray(parsed))
        return typeof parsed[0] === 'string' && (isShell(parsed[0]) || interpreterOf(parsed[0]) !== undefined) ? { program: 'uncertain' } : undefined;
    } catch {
      // Not JSON: podman takes the text for the program's name.
    }
  }
  if (isShell(value)) return { program: { shell: true } };
  const interpreter = interpreterOf(value);
  if (interpreter !== undefined) return { program: { interpreter } };
  const packages = packageToolOf(value);
  if (packages !== undefined) return { program: { packages } };
  // A wrapper, env, git, make… (`--entrypoint timeout img 5 …`): the container's arguments are its, read by rules of their own.
  return runsByRules(value) ? { program: { runs: true } } : undefined;
};
/**
 * Package managers and the runners of packages, by name (pip3.11 and pip-3 read as pip): the
 * subcommands whose every operand names a package (or a version, a URL, a path, a requirement)
 * installed or built, whose install scripts, setup.py, build.rs or gem extensions run (`all`),
 * those whose first operand is the package (or script, or program) run (`runs`; `runner`: the
 * tool itself, npx), and whether the words after that package are its arguments (`restData`),
 * not the tool's options; those whose first operand names the program run in the project's
 * environment (`commands`: bundle exec rake, poetry run pytest, conda run -n env python3), read
 * as a command name, the words after it as that program's (`uv run python3 -c …` as python3's);
 * and the options that take the next word though PACKAGE_FLAGS lists them for others (`values`:
 * conda run -n ENV), whose value, like that of an option not known, chooses the program. These
 * tools read options before `--` anywhere (npm's --script-shell, --node-options, --registry,
 * pip's --index-url, go's -toolexec run or choose code): a token in an option, in the word after
 * an option not known to take none, or at the start of a word before `--` is refused, as is a
 * token naming the subcommand.
 */
/** The subcommands of conda, mamba and micromamba that install packages (a package's link scripts run): every operand refused. */
const CONDA_INSTALLS = ['install', 'create', 'update', 'upgrade', 'env'];
const PACKAGE_TOOLS: Readonly<
  Record<
    string,
    {
      readonly all?: readonly string[];
      readonly runs?: readonly string[];
      readonly runner?: boolean;
      readonly restData?: boolean;
      readonly commands?: readonly string[];
      /** Subcommands whose words are joined into a command string a shell runs (npm explore PKG -- CMD…, pixi run CMD…). */
      readonly shells?: readonly string[];
      readonly values?: readonly string[];
    }
  >
> = {
  npx: { runner: true, restData: true },
  pnpx: { runner: true },
  bunx: { runner: true },
  uvx: { runner: true, restData: true },
  npm: {
    all: ['install', 'i', 'in', 'ins', 'inst', 'insta', 'instal', 'isnt', 'isnta', 'isntal', 'isntall', 'add', 'install-test', 'it', 'create', 'init', 'innit'],
    runs: ['exec', 'x'],
    shells: ['explore'],
  },
  pnpm: { all: ['add', 'install', 'i', 'create', 'update', 'up'], runs: ['dlx', 'exec'] },
  yarn: { all: ['add', 'create', 'global', 'up', 'upgrade'], runs: ['dlx', 'exec', 'run'] },
  bun: { all: ['add', 'a', 'install', 'i', 'create', 'c', 'update', 'link'], runs: ['x', 'exec'] },
  pip: { all: ['install', 'download', 'wheel'] },
  pipx: { all: ['install', 'inject', 'install-all', 'runpip', 'upgrade', 'reinstall'], runs: ['run'], restData: true },
  uv: { all: ['add', 'pip', 'tool', 'sync'], commands: ['run'] },
  gem: { all: ['install', 'i', 'exec', 'update', 'build'] },
  cargo: { all: ['install'] },
  go: { all: ['install', 'get'], runs: ['run'], restData: true },
  // corepack runs the package manager its first operand names (`corepack pnpm@9.1.0 add …`): read from there as that one; use,
  // install, prepare fetch the one named (a version, or a URL to an archive).
  corepack: { all: ['use', 'install', 'prepare', 'hydrate'] },
  // bundle exec and the run subcommands of Python's project tools and conda's: the program their first operand names; their
  // add and install subcommands, a package, version or source to install (whose build or link scripts run), or a plugin.
  bundle: { all: ['add', 'install', 'update', 'plugin'], commands: ['exec'] },
  poetry: { all: ['add', 'install', 'update', 'self', 'source'], commands: ['run'] },
  pipenv: { all: ['install', 'update', 'upgrade', 'sync'], commands: ['run'] },
  pdm: { all: ['add', 'install', 'update', 'sync', 'self', 'plugin'], commands: ['run'] },
  // hatch run [ENV:]CMD…, and hatch env run [-e ENV] [--] CMD… (its env group names a subcommand of its own).
  hatch: { commands: ['run'], values: ['-e', '--env', '-i', '--include', '-x', '--exclude', '--filter'] },
  rye: { all: ['add', 'install', 'sync', 'tools'], commands: ['run'] },
  // pixi run joins its words into a command its task shell runs (a task's name or a command line); pixi exec runs a program.
  pixi: { all: ['add', 'install', 'global', 'upgrade', 'update'], commands: ['exec'], shells: ['run'] },
  conda: { all: CONDA_INSTALLS, commands: ['run'], values: ['-n', '--name', '-p', '--prefix'] },
  // micromamba run -a/--attach (and mamba 2's, micromamba's) takes the next word, also an empty one (`-a ""`: attach none).
  mamba: { all: CONDA_INSTALLS, commands: ['run'], values: ['-n', '--name', '-p', '--prefix', '-a', '--attach'] },
  micromamba: { all: CONDA_INSTALLS, commands: ['run'], values: ['-n', '--name', '-p', '--prefix', '-r', '--root-prefix', '-a', '--attach'] },
};
/** Subcommands of the package managers that write configuration later commands obey (npm config set script-shell …): every operand refused. */
const PACKAGE_CONFIG = new Set(['config', 'c', 'set']);
/** Options of the package managers known to take no value: the word after them is no option's value. */
const PACKAGE_FLAGS = new Set([
  ...['-y', '--yes', '--no', '-q', '--quiet', '-s', '--silent', '-v', '--verbose', '-g', '--global', '-D', '--save-dev', '-S', '--save', '-E'],
  ...['--save-exact', '-O', '--save-optional', '--no-save', '--save-peer', '--ignore-scripts', '--legacy-peer-deps', '--force', '-f', '--dry-run'],
  ...['--prefer-offline', '--offline', '--no-audit', '--no-fund', '--if-present', '--production', '--frozen-lockfile', '--user', '-U', '--upgrade'],
  ...['--no-deps', '--pre', '--no-cache-dir', '--break-system-packages', '--force-reinstall', '--no-build-isolation', '--require-hashes'],
  ...['--no-input', '--disable-pip-version-check', '-I', '--ignore-installed', '--locked', '--frozen', '--release', '--all-features', '--no-sync'],
  ...['-x', '-n', '-a', '-race', '--no-document', '-N', '--user-install', '--isolated', '--system'],
  // uv run's and conda run's.
  ...['--no-project', '--all-extras', '--no-dev', '--script', '--no-capture-output', '--live-stream'],
]);
/**
 * Options of a package manager whose value (the next word) is data, by tool: a test name or
 * pattern, a count, an output path, a feature, a target directory (go's flag package and optparse
 * take the next word whatever it starts with; clap refuses one that looks like an option).
 */
const PACKAGE_DATA_OPTIONS: Readonly<Record<string, ReadonlySet<string>>> = {
  go: new Set(['-run', '-bench', '-skip', '-count', '-timeout', '-tags', '-o', '-parallel', '-cpu', '-benchtime', '-coverprofile', '-shuffle']),
  cargo: new Set(['--features', '-F', '--bin', '--example', '--test', '--target', '--target-dir', '--profile', '--jobs', '-j']),
  pip: new Set(['--target', '-t', '--root', '--prefix']),
};
/**
 * Options of a package manager whose value is text (npm version's commit message): data, but npm
 * reads a value starting with `-`, the next word or after `=`, as an option of its own
 * (`-m --script-shell=…` and `--message=--script-shell=…` run that shell), so a token is refused
 * where it starts the value.
 */
const PACKAGE_TEXT_OPTIONS: Readonly<Record<string, ReadonlySet<string>>> = { npm: new Set(['-m', '--message']) };
/**
 * The long options of pip and uv that name a requirements, constraints or overrides file, whose lines may be options
 * (--index-url, --extra-index-url, -e git+…) or local projects whose setup.py runs: given the standard input (pip's
 * `-r /dev/stdin`, uv's `-r -`, uv run's `--with-requirements -`), what a pipe, here-document or here-string gives it
 * chooses what is installed and from where, as a program read from the input does. pip (optparse) takes an unambiguous
 * start of a long option for it (`--requir`).
 */
const REQUIREMENTS_OPTIONS = [
  '--requirement',
  '--requirements',
  '--constraint',
  '--constraints',
  '--override',
  '--overrides',
  '--build-constraint',
  '--build-constraints',
  '--with-requirements',
];
/**
 * The value of a requirements option of pip or uv in `word` (-r, -c, uv's -b, also bundled after flags, `-Ur`, or a long
 * one of REQUIREMENTS_OPTIONS), '' when it is the next word; undefined when the word is no such option.
 */
const requirementsValue = (word: string): string | undefined => {
  const long = /^(--[A-Za-z-]{3,})(?:=([\s\S]*))?$/.exec(word);
  if (long !== null) return REQUIREMENTS_OPTIONS.some((option) => option.startsWith(long[1]!)) ? (long[2] ?? '') : undefined;
  return /^-[A-Za-z]*?[rcb]([\s\S]*)$/.exec(word)?.[1];
};
/** A requirements file that is the standard input (STANDARD_INPUT, also as a file: URL, which pip reads). */
const requirementsFromInput = (value: string): boolean => STANDARD_INPUT.test(value.replace(/^file:(?:\/\/[^/]*)?(?=\/)/, ''));
/** The state of a package manager named as the command (or run as python -m pip), before its first argument. */
const newPackages = (tool: string): NonNullable<CommandState['packages']> => {
  const spec = PACKAGE_TOOLS[tool]!;
  return { tool, subcommand: !spec.runner, options: true, operands: spec.runner ? 'runs' : undefined };
};
/** The words after a shell's or interpreter's package a package manager runs (npx tsx -e …) are that program's. */
const runPackageProgram = (state: CommandState, name: string): void => {
  state.packages = undefined;
  if (isShell(name)) state.shell = { arguments: 0 };
  else state.interpreter = newInterpreter(interpreterOf(name)!);
};
/** The package manager a command name runs: pip3, pip3.11, pip-3 are pip. */
const packageToolOf = (name: string): string | undefined => {
  const base = baseName(name);
  if (/^pip-?[0-9]*(?:\.[0-9]+)*$/.test(base)) return 'pip';
  if (base === 'bundler') return 'bundle';
  return Object.hasOwn(PACKAGE_TOOLS, base) && base !== 'bun' ? base : undefined;
};
/** The state of an interpreter named as the command, before its first argument. */
const newInterpreter = (name: string): NonNullable<CommandState['interpreter']> => ({
  name,
  options: true,
  given: false,
  script: INTERPRETERS[name]!.operands === 'script',
  subcommand: INTERPRETERS[name]!.subcommands !== undefined,
  operands: 0,
});
/** Long options of a shell that take the next word as their argument. */
const SHELL_LONG_OPTIONS_WITH_ARGUMENT = new Set(['--rcfile', '--init-file']);
/** Options of env that take the next word as their argument (GNU coreutils); `-S` splits it into the command and its arguments. */
const ENV_OPTIONS_WITH_ARGUMENT = new Set(['-u', '--unset', '-C', '--chdir', '-a', '--argv0', '-S', '--split-string']);
/** The options that may follow exec before the command name; `-a` takes the next word as the name it is run under. */
const EXEC_OPTIONS = /^-[cl]*a?[cl]*$/;
const isShell = (name: string): boolean => SHELLS.has(name.slice(name.lastIndexOf('/') + 1));
/**
 * A shell named as the command, before any script file and without -c (or with -c but run by
 * xargs, which gives it the command string from its input), an interpreter given no program
 * (or told to read it from its input: `python3 -`, `psql -f -`), or a command that reads shell
 * code from its input (`input`).
 */
/**
 * Whether a word xargs adds at the end of the command (without -I) is read where a value chooses what runs: by make, rake,
 * rspec, cucumber, mvn or gradle (a variable, an option, a task, a file loaded), tar before `--` (`--to-command=…`), kubectl
 * (its options are read anywhere: `-f=…`, `--kubeconfig=…`) or docker compose before its subcommand (`--file=…`).
 */
const xargsAddsCode = (state: CommandState): boolean =>
  (state.commandOptions !== undefined &&
    (XARGS_CODE_COMMANDS.has(state.commandOptions.command) || (state.commandOptions.command === 'tar' && !state.commandOptions.ended))) ||
  state.container?.tool === 'kubectl' ||
  state.container?.tool === 'oc' ||
  // After the program of kubectl exec without `--`, where kubectl still reads options (`… | xargs kubectl exec pod ./x`).
  state.kubectlTail !== undefined ||
  state.container?.compose !== undefined;
const XARGS_CODE_COMMANDS = new Set(['make', 'rake', 'rspec', 'cucumber', 'mvn', 'gradle']);
const readsScript = (state: CommandState): boolean =>
  state.input !== undefined ||
  (state.shell !== undefined && (state.shell.command !== true || state.xargs !== undefined)) ||
  (state.interpreter !== undefined && (state.interpreter.stdin === true || !state.interpreter.given)) ||
  // xargs adding what it reads to make's words, where a value could be a variable or an option (`… | xargs make deploy`),
  // and to those of the other programs that read options among their operands or load the file a word names.
  (state.xargs !== undefined && state.xargs.replace === undefined && xargsAddsCode(state)) ||
  // xargs adding what it reads to a package manager's words where they name a package or could be an option (`… | xargs npm i`).
  (state.xargs !== undefined &&
    state.packages !== undefined &&
    !state.packages.rest &&
    (state.packages.options ||
      state.packages.operands === 'all' ||
      state.packages.operands === 'command' ||
      (state.packages.operands === 'runs' && !state.packages.ran)));
/**
 * Whether a redirection of input is made on `exec` before any command name (`exec <<EOF`, `exec 3<<< …`,
 * `exec < <(…)`): it stays the shell's for every later command, and a shell or an interpreter given no
 * program there (`python3`, `sh`) reads it as its program. A command name may still follow the
 * redirection (`exec <<EOF cat`): refused too, erring toward refusing.
 */
const execInput = (state: CommandState): boolean => state.prefix === 'exec' && state.commandPosition;
/**
 * Whether the next word of the command is a file it runs as code: a shell's options and script
 * (`sh <(…)`), an interpreter's script or program file or a value of its options (`python3 <(…)`,
 * `psql -f <(…)`, `node -r <(…)`), what source, `.` or eval run, an awk or sed program file, pip's requirements file, and
 * a file whose contents choose what runs: the compose file or env file of docker compose (`-f <(…)`), kubectl apply's
 * manifest, what a `code` option of a program of COMMAND_OPTIONS or the like takes (`make -f <(…)`, `mvn -s <(…)`,
 * `gradle -I <(…)`, `rspec -r <(…)`), a container tool's option that chooses what runs (`docker --config <(…)`).
 */
const nextFileIsCode = (state: CommandState): boolean => {
  const it = state.interpreter;
  const spec = it === undefined ? undefined : INTERPRETERS[it.name]!;
  return (
    state.shell !== undefined ||
    (it !== undefined &&
      (it.next === 'code' ||
        it.next === 'option' ||
        it.rest === true ||
        it.subcommand ||
        (it.script && spec!.operands === 'script') ||
        spec!.operands !== 'script')) ||
    state.refusing === REFUSED.evaluated ||
    // The requirements file pip -r or -c takes (`pip install -r <(echo …)`): its lines may be options and local projects.
    state.packages?.requirements === true ||
    (state.awk !== undefined && (state.awk.next === 'code' || !state.awk.program)) ||
    (state.sed !== undefined && (state.sed.next === 'code' || !state.sed.program)) ||
    state.container?.compose?.next === 'choosing' ||
    state.container?.kubectlValue === 'manifest' ||
    state.container?.kubectlValue === 'choosing' ||
    state.container?.toolValue === 'choosing' ||
    state.commandOptions?.next === 'code'
  );
};
/**
 * Programs that run the command their arguments name (after their options, some taking the next
 * word, and `operands` fixed operands of their own): that word is read as a command name, so a
 * token there, or a shell's -c string after it, is refused as it would be at the start.
 */
const WRAPPERS: Readonly<
  Record<
    string,
    { readonly arguments: readonly string[]; readonly operands: number; readonly code?: readonly string[]; readonly directories?: readonly string[] }
  >
> = {
  nohup: { arguments: [], operands: 0 },
  // flock FILE COMMAND… runs COMMAND; flock FILE -c STRING runs STRING with sh -c. -c may follow FILE.
  flock: { arguments: ['-w', '--wait', '--timeout', '-E', '--conflict-exit-code'], operands: 1, code: ['-c', '--command'] },
  // runuser -u USER [--] COMMAND… runs COMMAND itself (only with -u: without it, as su, its arguments go to the user's shell).
  runuser: {
    arguments: ['-u', '--user', '-g', '--group', '-G', '--supp-group', '-w', '--whitelist-environment'],
    operands: 0,
    code: ['-c', '--command', '--session-command', '-s', '--shell'],
  },
  setsid: { arguments: [], operands: 0 },
  // Programs that run the command after their options as another user, with other privileges or in a session of their
  // own (pkexec --user root CMD…, setpriv --reuid 1000 CMD…, ssh-agent -t 60 CMD…, firejail --net=none CMD…).
  pkexec: { arguments: ['--user'], operands: 0 },
  setpriv: {
    arguments: [
      '--reuid',
      '--regid',
      '--ruid',
      '--rgid',
      '--euid',
      '--egid',
      '--groups',
      '--inh-caps',
      '--ambient-caps',
      '--bounding-set',
      '--securebits',
      '--pdeathsig',
      '--selinux-label',
      '--apparmor-profile',
      '--landlock-access',
      '--landlock-rule',
    ],
    operands: 0,
  },
  'ssh-agent': { arguments: ['-a', '-E', '-O', '-P', '-t'], operands: 0 },
  firejail: { arguments: [], operands: 0 },
  // The user switchers and init processes of containers' entry points (gosu app CMD…, su-exec app CMD…, tini -- CMD…,
  // dumb-init CMD…), and other programs that run the command after their options (chronic, faketime TIME CMD…,
  // catchsegv, systemd-inhibit, cpulimit -l 50 CMD…, with-contenv).
  gosu: { arguments: [], operands: 1 },
  'su-exec': { arguments: [], operands: 1 },
  's6-setuidgid': { arguments: [], operands: 1 },
  tini: { arguments: ['-p', '-e'], operands: 0 },
  'dumb-init': { arguments: ['-r', '--rewrite'], operands: 0 },
  chronic: { arguments: [], operands: 0 },
  faketime: { arguments: [], operands: 1 },
  catchsegv: { arguments: [], operands: 0 },
  'systemd-inhibit': { arguments: ['--what', '--who', '--why', '--mode'], operands: 0 },
  cpulimit: { arguments: ['-l', '--limit', '-p', '--pid', '-e', '--exe'], operands: 0 },
  'with-contenv': { arguments: [], operands: 0 },
  // daemontools, chpst's forerunners: setuidgid USER CMD…, envuidgid USER CMD…, softlimit -m N CMD…, envdir DIR CMD… (the
  // files of DIR set its environment: PATH, LD_PRELOAD…, refused as cd's directory is), and task spooler's tsp CMD….
  setuidgid: { arguments: [], operands: 1 },
  envuidgid: { arguments: [], operands: 1 },
  softlimit: { arguments: ['-m', '-a', '-d', '-s', '-l', '-f', '-c', '-o', '-p', '-t', '-r'], operands: 0 },
  envdir: { arguments: [], operands: 1 },
  tsp: { arguments: ['-L', '-D', '-N', '-E'], operands: 0 },
  // direnv exec DIR COMMAND… sources DIR's .envrc (bash) and runs COMMAND in the environment it exports: its operands are the
  // subcommand and the directory (refused as cd's is); another subcommand runs no command (allow, permit, grant trust the
  // .envrc of the directory their operand names: refused as cd's directory is).
  direnv: { arguments: [], operands: 2 },
  // chpst (runit) runs the command after its options; -e names an envdir whose files set its environment (PATH, LD_PRELOAD…),
  // -/ the root it chroots to, -C the directory it runs in: `directories`, refused as cd's directory is.
  chpst: {
    arguments: ['-u', '-U', '-b', '-n', '-l', '-L', '-m', '-d', '-o', '-p', '-f', '-c', '-e', '-/', '-C'],
    operands: 0,
    directories: ['-e', '-/', '-C'],
  },
  'dbus-run-session': { arguments: [], operands: 0 },
  // Tracers, sandboxes and the like that run the command after their options (strace -f -o log CMD…, xvfb-run -a CMD…).
  strace: { arguments: ['-e', '-o', '-p', '-s', '-u', '-E', '-a', '-b', '-I', '-O', '-P', '-S', '-X', '-U'], operands: 0 },
  ltrace: { arguments: ['-e', '-o', '-p', '-s', '-u', '-n', '-a', '-A', '-D', '-F', '-l', '-L', '-w', '-x'], operands: 0 },
  valgrind: { arguments: [], operands: 0 },
  unshare: { arguments: ['-S', '--setuid', '-G', '--setgid', '-R', '--root', '-w', '--wd', '--propagation', '--setgroups'], operands: 0 },
  'xvfb-run': {
    arguments: ['-n', '--server-num', '-s', '--server-args', '-e', '--error-file', '-f', '--auth-file', '-p', '--xauth-protocol', '-w', '--wait'],
    operands: 0,
  },
  unbuffer: { arguments: [], operands: 0 },
  numactl: { arguments: ['-N', '--cpunodebind', '-m', '--membind', '-C', '--physcpubind', '-i', '--interleave', '-p', '--preferred'], operands: 0 },
  prlimit: { arguments: ['-p', '--pid'], operands: 0 },
  busybox: { arguments: [], operands: 0 },
  nice: { arguments: ['-n', '--adjustment'], operands: 0 },
  ionice: { arguments: ['-c', '--class', '-n', '--classdata', '-p', '--pid', '-P', '--pgid', '-u', '--uid'], operands: 0 },
  stdbuf: { arguments: ['-i', '--input', '-o', '--output', '-e', '--error'], operands: 0 },
  timeout: { arguments: ['-s', '--signal', '-k', '--kill-after'], operands: 1 },
  chroot: { arguments: ['--userspec', '--groups'], operands: 1 },
  taskset: { arguments: [], operands: 1 },
  chrt: { arguments: ['-T', '--sched-runtime', '-P', '--sched-period', '-D', '--sched-deadline'], operands: 1 },
  sudo: {
    arguments: [
      '-u',
      '--user',
      '-g',
      '--group',
      '-C',
      '--close-from',
      '-D',
      '--chdir',
      '-h',
      '--host',
      '-p',
      '--prompt',
      '-r',
      '--role',
      '-t',
      '--type',
      '-T',
      '--command-timeout',
      '-U',
      '--other-user',
    ],
    operands: 0,
  },
  doas: { arguments: ['-u', '-C'], operands: 0 },
  xargs: {
    arguments: ['-a', '--arg-file', '-d', '--delimiter', '-E', '-I', '-L', '-n', '--max-args', '-P', '--max-procs', '-s', '--max-chars', '--process-slot-var'],
    operands: 0,
  },
};
/**
 * The option of a word of short options bundled getopt-style (`-Eu`, `-iC`, `-nu`) that takes the
 * next word as its value: the last letter, when it takes one and no letter before it took the
 * rest of the word as its value. `takes` says which options take a value.
 */
const bundledLastOption = (word: string, takes: (option: string) => boolean): string | undefined => {
  if (!/^-[A-Za-z0-9]{2,}$/.test(word)) return undefined;
  for (let k = 1; k < word.length; k++) if (takes(`-${word[k]}`)) return k === word.length - 1 ? `-${word[k]}` : undefined;
  return undefined;
};
const wrapperOf = (name: string): string | undefined => {
  const base = name.slice(name.lastIndexOf('/') + 1);
  return Object.hasOwn(WRAPPERS, base) ? base : undefined;
};
/**
 * A command name after which the words are read by rules of their own (a wrapper or env runs the command they name, git
 * and make read code from options, ssh and the runners run commands, a package manager installs or runs a package or
 * program): one a container may run where the check cannot tell which word is the program.
 */
const runsByRules = (name: string): boolean => {
  const base = baseName(name);
  return (
    wrapperOf(name) !== undefined ||
    packageToolOf(name) !== undefined ||
    base === 'env' ||
    base === 'git' ||
    base === 'ssh' ||
    base === 'sed' ||
    base === 'gsed' ||
    base === 'find' ||
    base === 'rails' ||
    base === 'spring' ||
    base === 'rake' ||
    buildToolOf(name) !== undefined ||
    base === 'rspec' ||
    base === 'cucumber' ||
    base === 'tar' ||
    AWKS.has(base) ||
    MAKES.has(base) ||
    COMMAND_RUNNERS.has(base) ||
    CONTAINER_TOOLS.has(base) ||
    EVALUATING.has(base) ||
    Object.hasOwn(COMMAND_OPTIONS, base)
  );
};

/**
 * Builtins that store into a variable named by an argument, and bash evaluates a subscript in
 * that name (`read 'a[$(touch x)]'` runs `touch` when `a` is an array; `printf -v`, `wait -p`
 * and `test -v` even when it is not): which options take a value, and whether that value
 * (`name`) or a plain value (`data`) — a prompt, a delimiter, a count — and which operands are
 * names. These builtins read their options getopt-style: up to `--` or the first operand.
 */
const NAMING: Readonly<Record<string, { readonly values: Readonly<Record<string, 'name' | 'data'>>; readonly operands: (n: number) => boolean }>> = {
  unset: { values: {}, operands: () => true },
  read: { values: { a: 'name', p: 'data', d: 'data', t: 'data', n: 'data', N: 'data', u: 'data', i: 'data' }, operands: () => true },
  // The first operand is the option string; the arguments after the name are data.
  getopts: { values: {}, operands: (n) => n === 2 },
  printf: { values: { v: 'name' }, operands: () => false },
  wait: { values: { p: 'name' }, operands: () => false },
};

/** What the scanner knows of the simple command it is in. */
interface CommandState {
  /** The next word names the command (only assignments and prefixes such as `then` came before). */
  commandPosition: boolean;
  /** The word before, when it was `time` or `command`, whose `-p` the command name may follow (or `exec`; `R CMD`, whose tools BATCH and INSTALL are known). */
  prefix?: string;
  /** Inside the arguments of a declaration builtin; `values` once it was given -n or -i (or -a, -A). */
  declaring?: { values: boolean; command: string };
  /** Inside the arguments of compgen or complete (`completion`), or of mapfile or readarray (`arrayBuiltin`). */
  refusing?: string;
  /** Inside the arguments of a builtin of NAMING: how far its options and operands went. */
  naming?: { command: string; options: boolean; operands: number; next?: 'name' | 'data' };
  /** Inside the arguments of find, whose -exec, -execdir, -ok and -okdir run the command that follows, up to `;` or `+`. */
  finding?: boolean;
  /** Inside the arguments of awk: whether options may still come, whether the program was given by an option, and what the next word is (an option's). */
  awk?: { options: boolean; program: boolean; next?: 'code' | 'data' };
  /** Inside the arguments of test or [: the next word is a name (after -v or -R). */
  testing?: { next: boolean };
  /** Inside the arguments of env, whose NAME=value words set the environment of the command it runs. */
  environment?: boolean | 'split';
  /** Inside the arguments of a shell (SHELLS), before its first operand: options, then the script or the -c command string; `arguments` words still belong to options (`-o pipefail`). */
  shell?: { arguments: number; command?: boolean; stdin?: boolean; endOfOptions?: boolean; container?: boolean };
  /**
   * Inside the arguments of an interpreter (INTERPRETERS): whether options may still come, whether
   * its program is `given` (by an option or its script operand: its input is no program then,
   * unless `stdin`), whether the next operand is the script file (or a subcommand, `subcommand`),
   * how many operands came, what the next word is (an option's value: `code` the program,
   * `option` a value no token may stand in), and `rest` once every word is code (pwsh -Command).
   */
  interpreter?: {
    name: string;
    options: boolean;
    given: boolean;
    stdin?: boolean;
    script: boolean;
    subcommand: boolean;
    operands: number;
    next?: 'code' | 'data' | 'assignment' | 'option';
    rest?: boolean;
    /** Named among a container tool's words, where the container may bear its name: a first operand naming an interpreter or shell starts afresh. */
    container?: boolean;
    /** The next word is the module python -m runs (pip, pipx, uv: a package manager's operands follow). */
    module?: boolean;
  };
  /** Inside git's options, before its subcommand: the next word is an option's value (`code` for -c and --config-env). */
  git?: {
    next?: 'code' | 'data';
    config?: { reading: boolean; operands: number };
    /** After a subcommand of GIT_SUBCOMMANDS: whether options may still come (before `--`), how many operands came, and `runs` once every word is a command. */
    subcommand?: { name: string; options: boolean; operands: number; runs?: boolean };
  };
  /** Inside the arguments of a program of WRAPPERS, before the command it runs: `operands` of its own still to come; `argument` when the next word is an option's. */
  wrapper?: { command: string; operands: number; argument: boolean; code?: boolean; directory?: boolean };
  /** Inside the arguments of ssh: options (and what the next word is, an option's value), then the destination, then the remote command's words (`remote`, their fixed text; `undefined` in it where a word is not fixed). */
  ssh?: { options: boolean; destination: boolean; next?: 'code' | 'data'; remote?: (string | undefined)[] };
  /** Inside the arguments of sed: whether options may still come, the script was given, --sandbox was given, and what the next word is. */
  sed?: { options: boolean; program: boolean; sandbox: boolean; next?: 'code' | 'data' };
  /** Inside the arguments of a program of COMMAND_OPTIONS; `next` when the next word is an option's value (`code` when it is code). */
  commandOptions?: { command: string; next?: 'code' | 'data' | 'file' | 'directory'; ended?: boolean; started?: boolean; property?: boolean };
  /**
   * Inside the arguments of a container tool: a shell named among them starts a shell's arguments;
   * `runs` once a word says it runs a command (`exec`, `run`…, or a tool that always does, nsenter),
   * after which an interpreter named among them starts an interpreter's (`docker logs node --tail …` runs none).
   */
  container?: {
    runs: boolean;
    /** The tool, by the last part of its name. */
    tool: string;
    /**
     * After run, create or exec of a tool of PROGRAM_TOOLS: how many operands came (the image or container, then the
     * program), whether the next word is an option's value, and how many options the check does not know came, each of
     * which may have taken the next word (the program may be that many words later). `latest` for podman exec (undefined
     * elsewhere), true once its -l/--latest named the container (or kubectl exec's -f the pod), after which the first
     * operand is the program. `rootfs` once podman's --rootfs made the first operand a host directory; `kubectl` for
     * kubectl and oc exec, whose options are kubectl's and come after the pod too (up to `--`), `rsh` for oc rsh, which
     * reads none after the pod (its words from there on are the command).
     */
    run?: { operands: number; value: boolean | 'choosing'; uncertain: number; latest?: boolean; image?: boolean; rootfs?: boolean; kubectl?: boolean | 'rsh' };
    /** The next word is the value of --entrypoint. */
    entrypointNext?: boolean;
    /** kubectl's or oc's next word is the value of one of its options: `choosing` when one of KUBECTL_EXEC_CHOOSING, `image` for --image. */
    kubectlValue?: boolean | 'choosing' | 'image' | 'manifest';
    /** The next word is the value of an option of the tool of CONTAINER_TOOL_OPTIONS, of that kind. */
    toolValue?: 'choosing' | 'env';
    /**
     * After docker compose (or docker-compose) before its own subcommand: its options are read (COMPOSE_OPTIONS), `choosing`
     * or `data` when the next word is the value of one.
     */
    compose?: { next?: 'choosing' | 'data' };
    /**
     * Of docker, podman and nerdctl before run, create or exec: `subcommand` once their own subcommand is surely named (a word
     * no option's value: `docker logs compose`, where compose is a container), `afterOption` when the word before was an
     * option that may take the next as its value (`docker -l debug compose`).
     */
    own?: { subcommand?: boolean; afterOption?: boolean; stack?: 'stack' | 'deploy' | 'file' };
    /** kubectl's or oc's subcommand (its first word that is no option or option's value: `logs`, whose -f takes no value). */
    kubectlSubcommand?: string;
    /** The next word is the value of -e/--env. */
    envNext?: boolean;
    /**
     * A shell or interpreter given by --entrypoint, which the words after the image go to (`docker run --entrypoint sh img -c …`),
     * with `value` when the next word is a docker option's value; `uncertain` when the check cannot tell which word is the image
     * (an option it does not know) or what runs (a JSON array): every later word is refused.
     */
    entrypoint?: {
      program: { shell: true } | { interpreter: string } | { packages: string } | { runs: true } | 'uncertain';
      value?: boolean | 'env' | 'choosing';
    };
  };
  /**
   * Inside the arguments of a package manager (PACKAGE_TOOLS): whether its subcommand is still to
   * come, whether options may (before `--`), whether the next word may be an option's `value`, what
   * its operands are (`all` packages installed, `runs` the first the package run), whether that
   * package came (`ran`), and `rest` once every word is the run package's argument.
   */
  packages?: {
    tool: string;
    subcommand: boolean;
    options: boolean;
    value?: 'data' | 'text' | 'maybe';
    /** The shell or interpreter the package run names (npm exec tsx …), whose words are its own after `--`. */
    program?: string;
    /** `shell`: npm explore's words after the package, joined into a command string run with sh -c; `command`: the next names the program run. */
    operands?: 'all' | 'runs' | 'shell' | 'command';
    ran?: boolean;
    /** The next word is the file a requirements option of pip or uv takes (-r, -c…): read from the input when it names it. */
    requirements?: boolean;
    rest?: boolean;
    /** The group of subcommands the subcommand came from (hatch env run). */
    group?: string;
  };
  /** The command defines a function (`NAME()`, `function NAME`): its body's compound records whether it runs a shell reading its input. */
  defining?: string;
  /** The next word is the argument of an option of env (`-u NAME`, `-C DIR`) or exec (`-a NAME`), not the command it runs. */
  optionArgument?: boolean;
  /**
   * The command runs what it reads from its input as shell code, though it is no shell still
   * before its script: a shell or source given /dev/stdin as its file (`bash /dev/stdin`), or a
   * compound command that holds such a command (`{ sh; }`, `(cd /srv && sh)`, `while …; do sh; done`),
   * or xargs putting what it reads into a shell's -c string (`xargs -I{} sh -c 'echo {}'`).
   * `substitution` when a command substitution in its code reads the input (`eval "$(cat)"`,
   * `sh -c "$(cat)"`): words are expanded before the command's own redirections are made, so
   * only a pipe into it or the input of a compound command around it reaches the substitution.
   */
  input?: true | 'substitution';
  /**
   * After the program of kubectl exec (oc exec, oc rsh) named without `--`: kubectl still reads a word that is an option
   * (`--kubeconfig=…`) as its own, after the program too (it parses options anywhere up to a `--`), and at a `--` drops the
   * words before it and runs the words after it. `kubectlValue` as in `container`.
   */
  kubectlTail?: { kubectlValue?: boolean | 'choosing' | 'image' | 'manifest' };
  /** The command is run by xargs, which adds the words it reads to its arguments, or puts them where its `replace` string (-I, -i) stands. */
  xargs?: { replace?: string; replaceNext?: boolean };
  /** The command's standard input is redirected (`< file`, `<<EOF`, `<<<`, `<&3`): a pipe into it, or the input of a compound around it, does not reach it. */
  ownInput?: boolean;
}

/** The fixed text at the start of a word, its quotes removed, up to the first expansion or token; `whole` when that is the whole word. */
interface Literal {
  readonly text: string;
  readonly whole: boolean;
}

interface Heredoc {
  readonly delimiter: string;
  readonly stripTabs: boolean;
  readonly quoted: boolean;
  /** The input of a shell that reads its script from it (shellInput). */
  readonly script: boolean;
}

const WORD_END = /[ \t\n;&|()<>]/;
/** The reserved words that open a compound command, with the word that closes it; `(` and `)` are operators, handled apart. */
const COMPOUND_CLOSERS: Readonly<Record<string, string>> = { '{': '}', if: 'fi', while: 'done', until: 'done', for: 'done', select: 'done', case: 'esac' };
const COMPOUND_WORD = /^(?:\{|\}|if|fi|while|until|for|select|done|case|esac)(?=[ \t\n;&|()<>]|$)/;
/** The start of a word bash may read as an array subscript: `name[…` or, in a compound assignment, `[…]=`. */
const SUBSCRIPT_START = /^(?:[A-Za-z_][A-Za-z0-9_]*\[|\[[^\s[\]])/;
const isWordEnd = (c: string | undefined): boolean => c === undefined || WORD_END.test(c);
/** What find -exec … `;` clears of the command it ran, so that the next -exec starts afresh (find itself is still `finding`). */
const FOUND_COMMAND_ENDED: Partial<CommandState> = {
  prefix: undefined,
  declaring: undefined,
  refusing: undefined,
  naming: undefined,
  testing: undefined,
  awk: undefined,
  environment: undefined,
  shell: undefined,
  interpreter: undefined,
  git: undefined,
  wrapper: undefined,
  optionArgument: undefined,
  ssh: undefined,
  sed: undefined,
  commandOptions: undefined,
  container: undefined,
  kubectlTail: undefined,
  packages: undefined,
};

/**
 * Reports the place of every token in a command template: a small shell lexer (POSIX sh, plus
 * the bash forms a template may use) that follows quotes, `$(…)`, backticks, `${…}`,
 * arithmetic, `[[ … ]]`, comments and here-documents, restarting the quoting inside each
 * command substitution.
 *
 * Safety does not rest on this lexer being right. The rendered script holds a reference to an
 * environment variable where each token stood, never the value, so a shell only ever expands
 * the value and never parses it: reading a place wrongly can change how the value's bytes arrive
 * (split into words, or as the literal text of the reference), not make it code. The one way an
 * expanded value becomes code is a shell evaluating it again — arithmetic, `[[ … ]]` and array
 * subscripts in bash — and those places are refused: they are recognised by their opening
 * characters wherever they may open, everything nested inside them is refused too, and each
 * is ended only by its own closing characters, so a misreading errs toward refusing.
 */
export const findTokenPlaces = (template: string): TokenPlace[] => new Scanner(template).scan();

/** A reference to a positional parameter (`$1`, `${2}`, `${1:-x}`, `$@`, `"$*"`; `$0` too, the first word after a -c string). */
const POSITIONAL = /\$\{[0-9@*][^}]*\}|\$[0-9@*]/g;

/** What a reference to a positional parameter, or to a variable holding one, is read as in a -c string: a token. */
const POSITIONAL_TOKEN = '{{body.positional}}';
/** What an escaped reference (`\\$x`) to a variable holding a value is read as in the template: a token, the backslash taken away. */
const ESCAPED_TOKEN = '{{body.escaped}}';
/** A reference after a backslash (`\\$x`, `\\${x}`, `\\$1`): the name or digit it names. */
const ESCAPED_REFERENCE = /\\\$\{?([A-Za-z_][A-Za-z0-9_]*|[0-9@*])/g;
/**
 * An assignment in a -c string (`x=$1`, `x="${1}"`, `local x=$1`, `x=$(printf %s "$1")`), at the start of the string or
 * after a space or an operator: the name and the value, up to its end (quotes and a simple `$(…)` kept whole).
 */
const ASSIGNMENT = /(?<![^\s;&|(!{])([A-Za-z_][A-Za-z0-9_]*)\+?=((?:"[^"]*"|'[^']*'|\$\([^)]*\)|`[^`]*`|\\.|[^\s;&|()'"\\])*)/g;
/** A reference to a variable in an assignment's value (`$x`, `${x}`, `${x:-…}`; not `${#x}` or `${!x}`): its name. */
const REFERENCED_NAME = /\$\{?([A-Za-z_][A-Za-z0-9_]*)/g;
/**
 * An indirect expansion (`${!ref}`, `${!ref:-…}`; not `${!a[@]}` or `${!prefix*}`): the variable whose name ref holds, which
 * the check does not follow; taken for a reference to every variable holding a value.
 */
const INDIRECT = /\$\{![A-Za-z_][A-Za-z0-9_]*(?:[:#%/^,][^}]*)?\}/;
/** A for loop's variable and its list (`for x in "$@"; do …`). */
const FOR_IN = /\bfor[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]+in[ \t]([^;\n]*)/g;
/** An assignment by a parameter expansion (`${y:=$x}`, `${y=$x}`, bash assigns the word when y is unset or empty): the name and the word. */
const DEFAULT_ASSIGNMENT = /\$\{([A-Za-z_][A-Za-z0-9_]*):?=([^}]*)/g;
/** A name reference (`declare -n ref=x`, `typeset -n`, `local -n`, also `-rn`): the reference and the variable it names, each the other. */
const NAMEREF =
  /(?<![^\s;&|(!{])(?:declare|typeset|local)[ \t]+(?:[-+][A-Za-z]*[ \t]+)*?-[A-Za-z]*n[A-Za-z]*[ \t]+(?:[-+][A-Za-z]+[ \t]+)*["']?([A-Za-z_][A-Za-z0-9_]*)=["']?([A-Za-z_][A-Za-z0-9_]*)/g;
/** A name reference declared without its variable (`declare -n ref; ref=x`: the assignment names the variable): the reference. */
const NAMEREF_LATER =
  /(?<![^\s;&|(!{])(?:declare|typeset|local)[ \t]+(?:[-+][A-Za-z]*[ \t]+)*?-[A-Za-z]*n[A-Za-z]*[ \t]+(?:[-+][A-Za-z]+[ \t]+)*([A-Za-z_][A-Za-z0-9_]*)(?=[\s;&|)]|$)/g;
/** An assignment's value that is a variable's name, quoted or not (`ref=x`, `ref="x"`). */
const NAME_VALUE = /^["']?([A-Za-z_][A-Za-z0-9_]*)["']?$/;
/** getopts and the variable it sets the option found into (`getopts a: opt`); it sets OPTARG to the option's value. */
const GETOPTS = /(?<![^\s;&|(!{])getopts[ \t]+[^\s;&|<>()]+[ \t]+([A-Za-z_][A-Za-z0-9_]*)/g;
/**
 * The variables builtins set from what they read or format (`read -r x <<<"$1"`, `… done <<EOF` with `$1` in the body,
 * `printf -v x %s "$1"`, `mapfile -t a`): the words after read, mapfile or readarray that are names (an option's value
 * named like one errs toward refusing), and printf's -v name. Group 1 the builtin (readarray before read, which starts it).
 */
const READ_INTO =
  /(?<![^\s;&|(!{])(readarray|read|mapfile)(?![A-Za-z0-9_])((?:[ \t]+[^\s;&|<>()]+)*)|(?<![^\s;&|(!{])printf[ \t]+(?:-[^\sv]*[ \t]+)*-v[ \t]*([A-Za-z_][A-Za-z0-9_]*)/g;

/** A read, mapfile or readarray command whose input is a file (`read -r h < hostfile`), up to its end. */
const READ_FROM_FILE = /(?<![^\s;&|(!{])(?:read|mapfile|readarray)(?:[ \t]+[^\s;&|<>()]+)*[ \t]*<(?![<(&])[^;&|\n]*/g;

/**
 * The names read, mapfile and readarray (`read -r x`, `mapfile -t a`) and, with `printf`, those set from no input, printf -v
 * and getopts (its name and OPTARG, from the positional parameters or its own arguments), set in a -c string.
 */
const readNames = (script: string, printf: boolean): Set<string> => {
  const names = new Set<string>();
  for (const m of script.matchAll(READ_INTO)) {
    // Without a name, read sets REPLY and mapfile MAPFILE (`read -r <<< …; $REPLY`): taken for set whether a name is given or not.
    if (m[1] !== undefined) names.add(m[1] === 'read' ? 'REPLY' : 'MAPFILE');
    for (const name of m[3] !== undefined ? (printf ? [m[3]] : []) : m[2]!.split(/[ \t]+/)) if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) names.add(name);
  }
  if (printf) for (const name of getoptsNames(script)) names.add(name);
  return names;
};

/** The variables getopts sets in `script` (the name it is given, and OPTARG), none without getopts. */
const getoptsNames = (script: string): string[] => [...script.matchAll(GETOPTS)].flatMap((m) => [m[1]!, 'OPTARG']);

/** For each variable, those an assignment or a for loop of `text` copies it into (`y=$x`, `y="pre-${x}"`, `for y in $x`). */
const copyReaders = (text: string): Map<string, string[]> => {
  const readers = new Map<string, string[]>();
  const add = (read: string, name: string): void => {
    const names = readers.get(read);
    if (names === undefined) readers.set(read, [name]);
    else names.push(name);
  };
  for (const pattern of [ASSIGNMENT, FOR_IN, DEFAULT_ASSIGNMENT])
    for (const m of text.matchAll(pattern)) for (const [, read] of m[2]!.matchAll(REFERENCED_NAME)) add(read!, m[1]!);
  // A name reference reads and writes the variable it names: each is the other's copy (`declare -n ref=x; $ref`, `ref=…; $x`).
  for (const m of text.matchAll(NAMEREF)) {
    add(m[2]!, m[1]!);
    add(m[1]!, m[2]!);
  }
  // One declared without its variable, which a later assignment names (`declare -n ref; ref=x`).
  const later = new Set([...text.matchAll(NAMEREF_LATER)].map((m) => m[1]!));
  if (later.size > 0)
    for (const m of text.matchAll(ASSIGNMENT)) {
      const named = NAME_VALUE.exec(m[2]!)?.[1];
      if (later.has(m[1]!) && named !== undefined) {
        add(named, m[1]!);
        add(m[1]!, named);
      }
    }
  return readers;
};

/** `names` and every variable they are copied into, through any number of copies, by the graph of `copyReaders`. */
const copiesOf = (readers: ReadonlyMap<string, readonly string[]>, names: Iterable<string>): Set<string> => {
  const copies = new Set<string>();
  const pending = [...names];
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (copies.has(name)) continue;
    copies.add(name);
    for (const reader of readers.get(name) ?? []) if (!copies.has(reader)) pending.push(reader);
  }
  return copies;
};

/**
 * `marked` (a -c string where what a value reaches is written as a token) with every reference to a variable of `copies`,
 * and to one the string copies a token into (by an assignment or a for loop, also through another such variable:
 * `x=$1; y=$x`), written as a token too.
 */
const markCopies = (
  marked: string,
  copies: Set<string>,
  replace = (text: string, reference: RegExp): string => text.replace(reference, POSITIONAL_TOKEN),
): string => {
  // A copy is a variable whose assignment or for loop holds a token or references a copy: followed as a graph (each
  // assignment read once), not by marking the text again for each copy found, which took seconds for a chain of a few
  // hundred (`v1=$v0`, `v2=$v1`…).
  const pending = [...copies];
  for (const pattern of [ASSIGNMENT, FOR_IN, DEFAULT_ASSIGNMENT])
    for (const m of marked.matchAll(pattern)) if (m[2]!.includes(POSITIONAL_TOKEN)) pending.push(m[1]!);
  for (const name of copiesOf(copyReaders(marked), pending)) copies.add(name);
  if (copies.size === 0) return marked;
  // `$x`, `${x}`, `${x:-…}`, `${x#…}`, not `${#x}` (its length) or `$xy`; and `${!ref}`, which may name any of them.
  const names = [...copies].join('|');
  return replace(marked, new RegExp(`\\$\\{(?:${names})(?:[^A-Za-z0-9_}][^}]*)?\\}|\\$(?:${names})(?![A-Za-z0-9_])|${INDIRECT.source}`, 'g'));
};

/**
 * `text` with the matches of `reference` written as a token where the shell expands them: outside single quotes (a -c string
 * in single quotes is read on its own, as the string of the shell it goes to).
 */
const markOutsideSingleQuotes = (text: string, reference: RegExp, token = POSITIONAL_TOKEN): string => {
  let out = '';
  let double = false;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === '"') double = !double;
    else if (c === "'" && !double) {
      const end = text.indexOf("'", i + 1);
      if (end < 0) break;
      out += markUnescaped(text.slice(from, i), reference, token) + text.slice(i, end + 1);
      from = end + 1;
      i = end;
    }
  }
  return out + markUnescaped(text.slice(from), reference, token);
};

/**
 * `text` with the matches of `reference` written as a token; one after a backslash (`"\$REF"`) is no expansion here but the
 * text `$REF`, which only what reads the text again expands (`eval "\$REF"`, `sh -c "eval \$REF"`): it is written, the
 * backslash taken away, as ESCAPED_TOKEN, where only what reads its argument again as code refuses it (see `scan`).
 */
const markUnescaped = (text: string, reference: RegExp, token = POSITIONAL_TOKEN): string => {
  let out = '';
  let from = 0;
  for (const m of text.matchAll(reference)) {
    let backslashes = 0;
    while (text[m.index - backslashes - 1] === '\\') backslashes++;
    const escaped = backslashes % 2 === 1;
    out += text.slice(from, escaped ? m.index - 1 : m.index) + (escaped ? ESCAPED_TOKEN : token);
    from = m.index + m[0].length;
  }
  return out + text.slice(from);
};

/** Whether the check refuses a token of `marked` (a -c string with tokens written in); one it cannot read (an unclosed quote) errs toward refusing. */
const refusesMarked = (marked: string): boolean => {
  try {
    return findTokenPlaces(marked).some((place) => 'refused' in place.place);
  } catch {
    return true;
  }
};

/**
 * Whether a fixed shell -c string puts a positional parameter where the check refuses a token:
 * each reference read as a token stands for the words after the string (`"$@"` as a command, `eval
 * "$1"`, `python3 -c "$1"`, and `make -- "$1"`, where make reads a value X=$(shell …) as a variable), which its
 * `shift` and `set --` may move, and so does a reference to a variable the string copies one into (`x=$1; $x`). What
 * read, mapfile and printf -v set is taken for such a copy whenever the string reaches a positional parameter at all
 * (whether their input holds it the check does not follow: `read -r x <<<"$1"; $x`). A string that only uses them as
 * data (`./deploy.sh "$1"`, `x=$1; echo "$x"`) is no such string. The check reads the string as a template of its own.
 */
const runsPositional = (script: string): boolean => {
  // bash's own ways to reach them the check does not read: indirection (`${!1}` evaluates a subscript in the value),
  // BASH_ARGV (bash -c fills it with them), a `for` loop without `in` (over "$@").
  if (/\$\{!|BASH_ARGV|\bfor[ \t]+[A-Za-z_]\w*[ \t]*(?:;|\n|do\b)/.test(script)) return true;
  const positional = script.replace(POSITIONAL, POSITIONAL_TOKEN);
  // getopts reads them without naming them (`getopts a: o; eval "$OPTARG"`).
  if (positional === script && getoptsNames(script).length === 0) return false;
  return refusesMarked(markCopies(positional, readNames(positional, true)));
};

/**
 * Whether a fixed shell -c string puts what it reads from its input where the check refuses a token (`read -r x; $x`,
 * `mapfile -t a; "${a[@]}"`): a here-document, here-string or pipe given to it is then its code, as one given to `sh -s`.
 * `read -r b; ./deploy.sh "$b"` uses it as data.
 */
const runsInput = (script: string): boolean => {
  const names = readNames(script, false);
  return names.size > 0 && refusesMarked(markCopies(script, names));
};

/**
 * The variables of `names` (each holding a token's value) that a fixed shell -c string puts where the check refuses a token,
 * itself or through a copy (`eval "$REF"`, `x=$REF; $x`); `./deploy.sh "$REF"` uses one as data.
 */
const runsVariables = (script: string, names: ReadonlySet<string>): string[] =>
  referencedNames(script, names).filter((name) => refusesMarked(markCopies(script, new Set([name]))));

/** The variables of `names` that `text` references (`$x`, `${x}`, `${x:-…}`), found in one pass whatever their number. */
const referencedNames = (text: string, names: ReadonlySet<string>): string[] => [
  ...new Set([...text.matchAll(REFERENCED_NAME)].map((m) => m[1]!).filter((name) => names.has(name))),
];

/**
 * The name of the variable the token at `at` is assigned to, when it stands in the value of a NAME= word (`REF={{…}}`,
 * `REF=v-{{…}}`, `export REF="{{…}}"`, docker's `-e REF={{…}}`, `-eREF=…`, `--env=REF=…`, also `a[0]=…`, `x+=…` and
 * `x=$(printf %s {{…}})`, whose output the value chooses), before the value's first unquoted space, or in the default
 * `${x:=…}` or `${x=…}` assigns.
 */
const assignedName = (template: string, at: number): string | undefined => {
  const m =
    /(?:(?:^|[\s;&|(]|-e|--env=)([A-Za-z_][A-Za-z0-9_]*)(?:\[[^\]\s]*\])?\+?=(?:"[^"]*|'[^']*|\$\([^)]*|`[^`]*|[^\s;&|()'"`])*|\$\{([A-Za-z_][A-Za-z0-9_]*):?=[^}]*)$/.exec(
      template.slice(Math.max(0, at - 400), at),
    );
  return m?.[1] ?? m?.[2];
};

/**
 * Whether a scan of `marked` (the template with references to what holds a value written as a token) refuses one of them:
 * an escaped reference is the text `$x`, refused where it is read again as code (eval, trap, source…), not where it is
 * text for another shell, which has no such variable unless exported (a fixed -c string is then read with it), a remote
 * one, or awk's field.
 */
const refusesMarkedReference = (marked: string): boolean =>
  new Scanner(marked, false)
    .scan()
    .some(
      (place) =>
        'refused' in place.place &&
        (place.token === POSITIONAL_TOKEN ||
          (place.token === ESCAPED_TOKEN &&
            place.place.refused !== REFUSED.shellScript &&
            place.place.refused !== REFUSED.remoteCommand &&
            place.place.refused !== REFUSED.awkProgram)),
    );

/** What the bare name of a variable holding a value (`n` in `$((n+1))`) is written as, to be read where it stands. */
const BARE_TOKEN = '{{body.bare}}';
/** Where a bare name is evaluated as arithmetic (bash evaluates a variable's value there) or read as a variable name (`${!n}`). */
const EVALUATES_NAME = new Set<string>([REFUSED.arithmetic, REFUSED.doubleBracket, REFUSED.subscript, REFUSED.substring, REFUSED.evaluated, REFUSED.name]);
/**
 * A variable's name standing bare: not after `$`, `${`, `${#`, a letter, digit or `_`, nor assigned (`n=`, `n+=`) or a for
 * loop's variable; `${!n}` is bare (bash expands the variable n names).
 */
const bareName = (name: string): string => `(?<![A-Za-z0-9_$#]|\\$\\{|\\b(?:for|select)[ \\t]+)${name}(?![A-Za-z0-9_]|\\+?=)`;

/**
 * A template that sets its positional parameters (`set -- …`, `set x y`, not `set -e` alone) or defines a function (`f() {`,
 * `function f`), whose body reads its arguments as them.
 */
const SETS_POSITIONAL = /(?<![^\s;&|(!{])(?:set(?:[ \t]+[-+][A-Za-z]+)*[ \t]+(?:--|[^-+\s;&|)])|function[ \t]+[^\s;&|()]|[A-Za-z_][\w.:-]*[ \t]*\([ \t]*\))/;

class Scanner {
  readonly #s: string;
  readonly #tokens = new Map<number, RegExpExecArray>();
  readonly #places: TokenPlace[] = [];
  /** The variables a -c string reads from its environment where a token is refused, whose value is a token's (REF={{…}} sh -c 'eval "$REF"'). */
  readonly #runVariables = new Set<string>();
  #tokenNames: ReadonlySet<string> | undefined;
  #copied: Map<string, string[]> | undefined;
  #pending: Heredoc[] = [];
  /** Reasons of the evaluating constructs the scanner is inside, outermost first. */
  readonly #evaluating: string[] = [];
  /** Functions the template defines whose body runs a shell reading its script from its input (`f() { sh; }`): calling one reads it too. */
  readonly #scriptFunctions = new Set<string>();
  /** The name of the function being defined, until its body opens. */
  #defining: string | undefined;
  /** The command names each function's body runs (another function, defined before or after it, may run the shell). */
  readonly #functionCalls = new Map<string, Set<string>>();
  /** The functions whose bodies the scanner is in, innermost last. */
  readonly #inFunctions: string[] = [];
  #i = 0;
  /**
   * How many backtick command substitutions the scanner is in: there an unescaped backtick ends
   * the word as well as the substitution (`echo \`pwd\` x`), and is no start of another one.
   */
  #backticks = 0;
  #end: number;

  /** Whether the variables the template assigns a token to are followed to their uses (not in the scan that follows them). */
  readonly #follow: boolean;

  constructor(template: string, follow = true) {
    this.#follow = follow;
    this.#s = template;
    this.#end = template.length;
    const tokens = new RegExp(TOKEN.source, 'g');
    for (let m = tokens.exec(template); m; m = tokens.exec(template)) this.#tokens.set(m.index, m);
  }

  scan(): TokenPlace[] {
    this.#command('');
    if (!this.#follow) return this.#places;
    // The template's own uses of such a variable (`x={{…}}; eval "$x"`): read with its references (and those of its
    // copies) written as a token, by a scan that follows no variable; all of them at once first, and only when that finds
    // one where a token is refused, each alone, to tell which.
    // Those referenced through a copy too (`declare -n ref=x; $ref`, where `$x` is not).
    // An indirect expansion (`n=x; eval "${!n}"`) may name any of them.
    const referenced = INDIRECT.test(this.#s) ? [...this.#copiedVariables().keys()] : referencedNames(this.#s, new Set(this.#copiedVariables().keys()));
    const used = [...new Set(referenced.flatMap((name) => this.#copiedVariables().get(name)!))];
    const refusesCopies = (names: string[]): boolean => refusesMarkedReference(markCopies(this.#s, new Set(names), markOutsideSingleQuotes));
    // Which of `names` (whose scan together refuses) are refused: by halves, so a template of n such variables takes about
    // log n scans per refused one rather than n. When neither half refuses alone (only their uses together do: `$x$y`),
    // all of them are; and so are all those left once 32 scans are spent (a template where most of hundreds of variables
    // reach a refused place: `v2={{…}}$v1`… then `eval "$v400"`), erring toward refusing rather than taking seconds.
    let scans = 32;
    const find = (names: string[]): void => {
      if (names.length === 1 || scans <= 0) {
        for (const name of names) this.#runVariables.add(name);
        return;
      }
      scans -= 2;
      const halves = [names.slice(0, names.length >> 1), names.slice(names.length >> 1)].filter((half) => refusesCopies(half));
      if (halves.length === 0) for (const name of names) this.#runVariables.add(name);
      for (const half of halves) find(half);
    };
    if (used.length > 0 && refusesCopies(used)) find(used);
    // Its name, without `$`, where bash evaluates arithmetic (`$((n+1))`, `((n > 1))`, `[[ n -gt 1 ]]`, `let m=n`,
    // `${a[n]}`, `${s:n}`) or reads it as a variable name to expand (`${!n}`): bash evaluates the value as arithmetic, whose
    // subscripts run commands (a value `a[$(touch x)]`). Read with each such bare name written as a token of its own.
    // Its copies' names too (`y=$x; ((y > 1))`).
    const bare = [...this.#copiedVariables().keys()].filter((name) => new RegExp(bareName(name)).test(this.#s));
    const refusesBare = (names: string[]): boolean =>
      new Scanner(markOutsideSingleQuotes(this.#s, new RegExp(names.map(bareName).join('|'), 'g'), BARE_TOKEN), false)
        .scan()
        .some((place) => place.token === BARE_TOKEN && 'refused' in place.place && EVALUATES_NAME.has(place.place.refused));
    // Each alone when there are a few, to tell which (a name bare in `echo x` is no use of it); all of them beyond 16.
    if (bare.length > 0 && /\(\(|\$\[|\[\[|\blet\b|\$\{[!A-Za-z_]/.test(this.#s) && refusesBare(bare))
      for (const name of bare)
        if (bare.length === 1 || bare.length > 16 || refusesBare([name]))
          for (const origin of this.#copiedVariables().get(name)!) this.#runVariables.add(origin);
    // The template's positional parameters, once it sets them (`set -- {{…}}`) or defines a function, whose arguments they
    // are in its body (`f() { eval "$1"; }; f {{…}}`): read the same way, with `$1`, `$@`… (and the variables it copies
    // them into: `local x=$1`) written as a token. The check does not follow which words become which parameter: when
    // one reaches a refused place, every token of the template is refused.
    // What getopts sets from them is such a copy (`set -- {{…}}; getopts a: o; eval "$OPTARG"`).
    if (this.#places.length > 0 && SETS_POSITIONAL.test(this.#s)) {
      const positional = markOutsideSingleQuotes(this.#s, POSITIONAL);
      const getopts = new Set(getoptsNames(this.#s));
      if ((positional !== this.#s || getopts.size > 0) && refusesMarkedReference(markCopies(positional, getopts, markOutsideSingleQuotes)))
        return this.#refuse(() => true);
    }
    // What read, mapfile and printf -v set on a line holding a token (`read -r x <<< {{…}}; $x`, `printf -v x %s {{…}}`,
    // `echo {{…}} | { read -r d; cd "$d"; }`): read as such a variable; the check does not follow which token is their
    // input, so every token of those lines is refused when one of them reaches a refused place.
    // A read from a file (`read -r host < hostfile`) reads no token.
    const tokenReads = (line: string): Set<string> => readNames(line.replace(READ_FROM_FILE, ''), true);
    const readLines = [...this.#s.matchAll(/[^\n]*/g)].filter((line) => line[0].includes('{{') && tokenReads(line[0]).size > 0);
    if (readLines.length > 0) {
      const names = new Set(readLines.flatMap((line) => [...tokenReads(line[0])]));
      if (refusesMarkedReference(markCopies(this.#s, names, markOutsideSingleQuotes))) {
        const onLine = (at: number): boolean => readLines.some((line) => at >= line.index && at < line.index + line[0].length);
        return this.#refuse(onLine);
      }
    }
    // What read and mapfile set anywhere in the template, when a here-document body holds a token: the body is the input of a
    // command on another line (`while read -r x; do $x; done <<EOF`, the read on a line before the one of `<<EOF`). The check
    // does not follow which here-document feeds which read: every here-document token is refused when one of them reaches a
    // refused place.
    const inHeredocs = new Set(this.#places.filter((place) => 'context' in place.place && place.place.context === 'heredoc').map((place) => place.index));
    if (inHeredocs.size > 0) {
      const names = readNames(this.#s.replace(READ_FROM_FILE, ''), false);
      if (names.size > 0 && refusesMarkedReference(markCopies(this.#s, names, markOutsideSingleQuotes))) return this.#refuse((at) => inHeredocs.has(at));
    }
    if (this.#runVariables.size === 0) return this.#places;
    // A token assigned to such a variable anywhere (`REF={{…}}`, `export REF={{…}}`, `-e REF={{…}}`, `for x in {{…}}`) is refused.
    return this.#places.map((place) => {
      const names = this.#assignedNames(place.index);
      return names.some((name) => this.#runVariables.has(name)) && 'context' in place.place ? { ...place, place: { refused: REFUSED.copiedValue } } : place;
    });
  }

  /** The places found, with those `at` whose index, not refused yet, refused as copiedValue (with those of #runVariables). */
  #refuse(at: (index: number) => boolean): TokenPlace[] {
    return this.#places.map((place) =>
      'context' in place.place && (at(place.index) || this.#assignedNames(place.index).some((name) => this.#runVariables.has(name)))
        ? { ...place, place: { refused: REFUSED.copiedValue } }
        : place,
    );
  }

  /** The variables the token at `at` is assigned to: by a NAME= word (assignedName), or as a word of a for loop's list. */
  #assignedNames(at: number): string[] {
    const name = assignedName(this.#s, at);
    const loops = [...this.#s.slice(0, at).matchAll(FOR_IN)].filter((m) => m.index + m[0].length >= at).map((m) => m[1]!);
    return name === undefined ? loops : [name, ...loops];
  }

  /**
   * The variables a token of the template is assigned to and those the template copies them into (`REF2=$REF sh -c …`,
   * docker's `-e X="$REF"`), each with the former it holds the value of (found once).
   */
  #copiedVariables(): ReadonlyMap<string, readonly string[]> {
    if (this.#copied === undefined) {
      const readers = copyReaders(this.#s);
      this.#copied = new Map();
      for (const origin of this.#tokenVariables())
        for (const name of copiesOf(readers, [origin])) {
          const origins = this.#copied.get(name);
          if (origins === undefined) this.#copied.set(name, [origin]);
          else origins.push(origin);
        }
    }
    return this.#copied;
  }

  /** The variables a token of the template is assigned to (the template does not change: found once). */
  #tokenVariables(): ReadonlySet<string> {
    this.#tokenNames ??= new Set([...this.#tokens.keys()].flatMap((at) => this.#assignedNames(at)));
    return this.#tokenNames;
  }

  /** Records the token at `at` (refused when inside an evaluating construct) and moves past it. */
  #place(at: number, where: TokenContext | { refused: string }): void {
    const m = this.#tokens.get(at)!;
    const place = this.#evaluating.length > 0 ? { refused: this.#evaluating[0] } : typeof where === 'string' ? { context: where } : where;
    this.#places.push({ index: at, length: m[0].length, token: m[0], source: m[1], path: m[2], place });
    this.#i = at + m[0].length;
  }

  /** Runs `scan` with every token inside it refused for `reason`. */
  #evaluated(reason: string, scan: () => void): void {
    this.#evaluating.push(reason);
    try {
      scan();
    } finally {
      this.#evaluating.pop();
    }
  }

  /** Skips a backslash and the character it escapes; a token there is refused. */
  #backslash(): void {
    if (this.#backticks > 0 && this.#s[this.#i + 1] === '`') {
      // Inside backticks, \` opens (or closes) a substitution nested in it: the shell takes the
      // backslashes away and reads the text as commands once more (`echo \`eval {{…}}\``), which
      // this check does not follow, nor where the outer one ends. Every token from here on is refused.
      while (this.#i < this.#end) {
        if (this.#tokens.has(this.#i)) this.#place(this.#i, { refused: REFUSED.nestedBackticks });
        else this.#i++;
      }
      return;
    }
    if (this.#tokens.has(this.#i + 1)) this.#place(this.#i + 1, { refused: REFUSED.backslash });
    else this.#i += 2;
  }

  /** Command text (the top level, `$(…)`, backticks, `[[ … ]]`, `${ …; }`), up to its `closer`. */
  #command(closer: '' | ')' | '`' | ']]' | '}'): void {
    if (closer !== '`') {
      this.#commandText(closer);
      return;
    }
    this.#backticks++;
    try {
      this.#commandText(closer);
    } finally {
      this.#backticks--;
    }
  }

  #commandText(closer: '' | ')' | '`' | ']]' | '}'): void {
    const s = this.#s;
    let wordStart = true;
    let depth = 0;
    // The `{ …; }` groups open inside a `${ …; }`: only a `}` word outside them closes it.
    let groups = 0;
    let cases = 0;
    // After <, > or <<<, the word is a file or a here-string, no argument of the command.
    let redirect = false;
    const state: CommandState = { commandPosition: true };
    // The places of the pipeline under way start at `pipeline`, those of its current command at
    // `commandStart`; `piped` when that command reads what the one before it writes (`|`, `|&`).
    let pipeline = this.#places.length;
    let commandStart = pipeline;
    let piped = false;
    // The here-documents of the pipeline under way (their bodies come after the line): from this index of #pending.
    let pipelineHeredocs = this.#pending.length;
    // The compound commands open (`{`, `(`, `if`, loops, `case`), innermost last, with the word that
    // closes each: `script` once a command inside reads its script from its input, which is the
    // compound's input unless redirected (`{ sh; } <<EOF`, `… | (cd /srv && bash)`). Each keeps
    // the pipeline it stands in, which the commands inside end: its closer takes it up again.
    interface Compound {
      readonly closer: string;
      script: boolean;
      readonly pipeline: number;
      readonly commandStart: number;
      readonly piped: boolean;
      readonly pipelineHeredocs: number;
      /** The function whose body it is: it runs when the function is called, not here. */
      readonly function?: string;
      /** How many here-documents were pending when it opened: those from `pipelineHeredocs` on are written into the pipe to it. */
      readonly heredocsBefore: number;
      /** The places of the bodies of those here-documents, once read (`cat <<EOF | {` with the body on the next line): its input. */
      readonly fed: Array<[number, number]>;
      /** Until the end of the line it opened on, whose here-documents' bodies follow that line. */
      sameLine: boolean;
      /**
       * A process substitution: `input` (`<(…)`, the command reads what it writes) or `output` (`>(…)`, it reads what the
       * command writes), the first place inside it, and `runs` when the command runs what it reads as code.
       */
      substitution?: { kind: 'input' | 'output'; from: number; runs: boolean };
    }
    const compounds: Compound[] = [];
    const openCompound = (closer: string, at: Omit<Compound, 'closer' | 'script' | 'function' | 'heredocsBefore' | 'fed' | 'sameLine'>): void => {
      const name = this.#defining;
      this.#defining = undefined;
      if (name !== undefined) this.#inFunctions.push(name);
      compounds.push({
        closer,
        script: false,
        ...at,
        heredocsBefore: this.#pending.length,
        fed: [],
        sameLine: true,
        ...(name === undefined ? {} : { function: name }),
      });
    };
    /** At the closer of the innermost compound command: the command it is goes on, its input the script of a shell inside or not. */
    const closeCompound = (): void => {
      const open = compounds.pop()!;
      ({ pipeline, commandStart, piped, pipelineHeredocs } = open);
      if (open.function !== undefined) this.#inFunctions.pop();
      if (open.function !== undefined && open.script) this.#scriptFunctions.add(open.function);
      // Here-documents written into the pipe to it whose bodies came before the shell inside was seen are its script too.
      if (open.script && open.function === undefined) for (const [from, to] of open.fed) this.#refuseSince(from, to, REFUSED.shellInput);
      state.input = open.script && open.function === undefined ? true : undefined;
    };
    /** Whether the redirection whose `<` is at `at` is of the standard input (no descriptor number before it, or 0). */
    const fromStandardInput = (at: number): boolean => /(?:^|[ \t\n;&|()<>])(?:0?)$/.test(s.slice(Math.max(0, at - 12), at)) || at === 0;
    /** Ends a command: `pipe` before a `|`, `list` before anything else that starts a command. */
    const endCommand = (next: 'pipe' | 'list' = 'list'): void => {
      if (readsScript(state) && !state.ownInput) for (const open of compounds) open.script = true;
      // A shell that reads its script from its input runs what the commands before it in the pipe write.
      if (piped && readsScript(state) && !state.ownInput) {
        this.#refuseSince(pipeline, commandStart, REFUSED.shellInput);
        this.#pending = this.#pending.map((heredoc, k) => (k >= pipelineHeredocs ? { ...heredoc, script: true } : heredoc));
      }
      piped = next === 'pipe';
      if (!piped) {
        pipeline = this.#places.length;
        pipelineHeredocs = this.#pending.length;
      }
      commandStart = this.#places.length;
      state.commandPosition = true;
      state.prefix = undefined;
      state.declaring = undefined;
      state.refusing = undefined;
      state.naming = undefined;
      state.testing = undefined;
      state.environment = undefined;
      state.shell = undefined;
      state.interpreter = undefined;
      state.git = undefined;
      state.input = undefined;
      state.xargs = undefined;
      state.ownInput = undefined;
      state.finding = undefined;
      state.awk = undefined;
      state.optionArgument = undefined;
      state.wrapper = undefined;
      state.ssh = undefined;
      state.sed = undefined;
      state.commandOptions = undefined;
      state.container = undefined;
      state.kubectlTail = undefined;
      state.packages = undefined;
    };
    while (this.#i < this.#end) {
      const i = this.#i;
      const c = s[i];
      // Inside [[ … ]] every token is refused already.
      if (wordStart && closer !== ']]' && !isWordEnd(c) && c !== '#' && !(closer === '`' && c === '`')) {
        const atCommand = !redirect && state.commandPosition;
        const consumed = !redirect && this.#startWord(state);
        redirect = false;
        if (consumed) {
          wordStart = false;
          continue;
        }
        const reserved = atCommand ? COMPOUND_WORD.exec(s.slice(i, i + 7))?.[0] : undefined;
        if (reserved !== undefined && Object.hasOwn(COMPOUND_CLOSERS, reserved)) {
          openCompound(COMPOUND_CLOSERS[reserved]!, { pipeline, commandStart, piped, pipelineHeredocs });
          // The commands inside `{`, `if` and `while`/`until` start here, outside the pipeline (its closer takes that up
          // again); `for` and `case` words before `do` and `in` are no commands (`case {{…}} in` stays a value).
          if (/^(?:\{|if|while|until)$/.test(reserved)) {
            endCommand();
            state.prefix = reserved;
          }
        }
        // Its redirections and a pipe into it (read after this word) reach the commands inside.
        else if (reserved !== undefined && compounds.at(-1)?.closer === reserved) closeCompound();
      }
      if (this.#tokens.has(i)) {
        this.#place(i, 'unquoted');
        wordStart = false;
        continue;
      }
      if ((closer === ')' && c === ')' && depth === 0 && cases === 0) || (closer === '`' && c === '`')) {
        this.#i++;
        endCommand();
        return;
      }
      if (closer === ']]' && wordStart && s.startsWith(']]', i) && isWordEnd(s[i + 2])) {
        this.#i += 2;
        return;
      }
      if (closer === '}' && wordStart && c === '{' && isWordEnd(s[i + 1])) groups++;
      if (closer === '}' && wordStart && c === '}') {
        if (groups === 0) {
          this.#i++;
          endCommand();
          return;
        }
        groups--;
      }
      if (wordStart && (s.startsWith('case', i) || s.startsWith('esac', i)) && isWordEnd(s[i + 4])) {
        // Inside `case … esac` a pattern's `)` does not close a `$(…)`.
        if (c === 'c') cases++;
        else if (cases > 0) cases--;
        this.#i += 4;
        wordStart = false;
        continue;
      }
      if (c === '\n') {
        this.#i++;
        // The command ends before the here-documents' bodies are read: a shell it pipes them to makes them its script.
        endCommand();
        const bodies = this.#heredocs();
        // A compound still open that these here-documents are piped into (`cat <<EOF | {`, the shell on a later line) gets their bodies as its input.
        for (const open of compounds) {
          if (open.piped && open.sameLine) for (let k = open.pipelineHeredocs; k < open.heredocsBefore && k < bodies.length; k++) open.fed.push(bodies[k]!);
          open.sameLine = false;
        }
        pipelineHeredocs = 0;
        pipeline = this.#places.length;
        commandStart = pipeline;
        wordStart = true;
      } else if (c === ' ' || c === '\t') {
        this.#i++;
        wordStart = true;
      } else if (c === '#' && wordStart) {
        this.#comment(closer === '`');
      } else if (c === '\\') {
        if (s[i + 1] === '\n') this.#i += 2;
        else {
          this.#backslash();
          wordStart = false;
        }
      } else if (c === "'") {
        this.#single();
        wordStart = false;
      } else if (c === '"') {
        this.#double();
        wordStart = false;
      } else if (c === '$') {
        this.#dollar('unquoted');
        wordStart = false;
      } else if (c === '`') {
        this.#i++;
        this.#command('`');
        wordStart = false;
      } else if (c === '(' && s[i + 1] === '(') {
        this.#i += 2;
        this.#evaluated(REFUSED.arithmetic, () => this.#arithmetic('))'));
        wordStart = true;
      } else if (c === '(' || c === ')') {
        if (c === '(') depth++;
        else if (depth > 0) depth--;
        this.#i++;
        wordStart = true;
        const at = { pipeline, commandStart, piped, pipelineHeredocs };
        // A process substitution `<(…)` is a file the command reads: its script or program (`python3 <(…)`, `source <(…)`,
        // `psql -f <(…)`), or its input (`python3 < <(…)`) where it reads its program from its input.
        const substitution = c === '(' && redirect ? (s[i - 1] === '>' ? 'output' : 'input') : undefined;
        const stdinRedirect = substitution === 'input' && /(?:^|[^<0-9])0?<[ \t]*<$/.test(s.slice(Math.max(0, i - 16), i));
        const runs = substitution === 'input' && ((stdinRedirect ? readsScript(state) : nextFileIsCode(state)) || execInput(state));
        // The () of a function definition (`f() { …; }`) opens no body: the compound after it is.
        const definition = c === '(' && this.#defining !== undefined && /^[ \t]*\)/.test(s.slice(i + 1, i + 16));
        endCommand();
        if (definition) {
          this.#i = s.indexOf(')', i) + 1;
          continue;
        }
        // A subshell's redirections and a pipe into it reach the commands inside; a process substitution's input is not the command's.
        if (c === '(') {
          openCompound(redirect ? '' : ')', at);
          if (substitution !== undefined) compounds.at(-1)!.substitution = { kind: substitution, from: this.#places.length, runs };
        } else if (compounds.at(-1)?.closer === ')') closeCompound();
        else if (compounds.at(-1)?.closer === '') {
          const open = compounds.pop()!;
          // `python3 <(echo {{…}})`: what it writes is the program. `echo {{…}} | tee >(sh)`: a command inside that reads its script from its input reads what the pipeline writes.
          if (open.substitution?.runs) this.#refuseSince(open.substitution.from, this.#places.length, REFUSED.shellInput);
          if (open.substitution?.kind === 'output' && open.script) this.#refuseSince(open.pipeline, open.substitution.from, REFUSED.shellInput);
        }
        // After < or >, a ( opens a process substitution (`<(…)`, `>(…)`): its first word is a command name, no file.
        redirect = false;
      } else if (wordStart && s.startsWith('[[', i) && isWordEnd(s[i + 2])) {
        this.#i += 2;
        this.#evaluated(REFUSED.doubleBracket, () => this.#command(']]'));
        wordStart = true;
      } else if (wordStart && SUBSCRIPT_START.test(s.slice(i, i + 256))) {
        // `name[…]=…` and `([…]=…)`: bash evaluates an indexed array's subscript as arithmetic.
        this.#i = s.indexOf('[', i) + 1;
        this.#evaluated(REFUSED.subscript, () => this.#arithmetic(']'));
        wordStart = false;
      } else if (s.startsWith('<<<', i)) {
        if (fromStandardInput(i)) state.ownInput = true;
        this.#i += 3;
        wordStart = true;
        redirect = true;
        if ((readsScript(state) && state.input !== 'substitution') || execInput(state)) {
          while (s[this.#i] === ' ' || s[this.#i] === '\t') this.#i++;
          this.#refuseWord(REFUSED.shellInput, false);
          wordStart = false;
          redirect = false;
        }
      } else if (s.startsWith('<<', i)) {
        if (fromStandardInput(i)) state.ownInput = true;
        this.#i += 2;
        this.#heredocOperator((readsScript(state) && state.input !== 'substitution') || execInput(state));
        wordStart = true;
      } else {
        this.#i++;
        wordStart = /[;&|<>]/.test(c);
        if (c === '|') endCommand(s[i + 1] === '|' || s[i - 1] === '|' ? 'list' : 'pipe');
        // The & of `>&`, `<&`, `&>` and `|&` is part of a redirection or of the pipe: the command goes on.
        else if (c === '&') {
          if (!/[|<>]/.test(s[i - 1] ?? '') && s[i + 1] !== '>') endCommand();
        } else if (c === ';') endCommand();
        else if (/[<>]/.test(c)) {
          redirect = true;
          // `< /dev/stdin` and `<&0` open the input the command had: a pipe into it still reaches it (`… | node < /dev/stdin`).
          const again = /^(?:&0|[ \t]*(?:\/dev\/stdin|\/dev\/fd\/0|\/proc\/self\/fd\/0))(?=[ \t\n;&|()<>]|$)/.test(s.slice(i + 1, i + 40));
          if (c === '<' && s[i + 1] !== '(' && fromStandardInput(i) && !again) state.ownInput = true;
        }
      }
    }
    endCommand();
  }

  /** Refuses, for `reason`, the tokens placed from `from` up to `to` that were taken. */
  #refuseSince(from: number, to: number, reason: string): void {
    for (let k = from; k < to; k++) {
      const taken = this.#places[k]!;
      if ('context' in taken.place) this.#places[k] = { ...taken, place: { refused: reason } };
    }
  }

  /**
   * At the start of a word of command text: refuses the tokens of the word where bash evaluates
   * what it holds (an assignment to an integer variable before the command name or given to a
   * declaration builtin, a name or a -n/-i/-a/-A value given to a declaration builtin, a
   * variable name given to a builtin of NAMING or to test -v, any argument of compgen, complete,
   * mapfile or readarray), consuming the word and returning true; otherwise only notes whether
   * the word names the command, and returns false for the word to be read as usual. The command
   * name is recognised as fixed text, its quotes removed as the shell removes them (`\export`,
   * `"unset"`), at the start of a command, after assignments and prefixes such as `then`, `!`,
   * `command`, `time -p` or `coproc`; a name built from expansions is not seen.
   */
  #startWord(state: CommandState): boolean {
    const head = this.#s.slice(this.#i, this.#i + 256);
    // A redirection of a numbered or named descriptor (`2>/dev/null`, `3>&1`, `{fd}>file`), wherever it stands: no word of the command.
    if (/^(?:[0-9]+|\{[A-Za-z_][A-Za-z0-9_]*\})[<>]/.test(head)) return false;
    if (state.kubectlTail) {
      // After the program of kubectl exec without `--`: kubectl reads an option among its words as its own (a value
      // `--kubeconfig=…` there, whose credential plugin runs on the host), and runs what follows a `--` instead of them.
      const literal = this.#literal();
      if (literal.whole && literal.text === '--' && !state.kubectlTail.kubectlValue) {
        Object.assign(state, { ...FOUND_COMMAND_ENDED, commandPosition: true });
        this.#wordToEnd(false);
        return true;
      }
      if (this.#kubectlWord(state, state.kubectlTail, literal)) return true;
    }
    const assignment = /^([A-Za-z_][A-Za-z0-9_]*)(\+?=|\[)/.exec(head);
    const refusal = assignment ? assignedRefusal(assignment[1]!) : undefined;
    // PIP_REQUIREMENT=/dev/stdin pip install: pip reads its requirements from its input, as with -r /dev/stdin.
    if (state.commandPosition && assignment && /^(?:PIP_REQUIREMENT|PIP_CONSTRAINT|UV_CONSTRAINT|UV_OVERRIDE|UV_BUILD_CONSTRAINT)$/.test(assignment[1]!)) {
      const value = /^[A-Za-z_][A-Za-z0-9_]*=(\S*)/.exec(head)?.[1] ?? '';
      if (requirementsFromInput(value.replace(/^["']|["']$/g, ''))) state.input = true;
    }
    if (state.commandPosition && refusal !== undefined) {
      // Before the command name, with a command after it or not (bash in POSIX mode, as /bin/sh, keeps the assignment).
      return this.#refuseWord(refusal, true);
    }
    if (state.finding) {
      const literal = this.#literal();
      if (literal.whole && /^-(?:exec|execdir|ok|okdir)$/.test(literal.text)) {
        // The next word names the command find runs (a shell's -c string after it is code).
        Object.assign(state, { ...FOUND_COMMAND_ENDED, commandPosition: true });
        return false;
      }
      if (literal.whole && (literal.text === ';' || literal.text === '+')) {
        // The end of that command (`\;`, `';'`, `+`): find's own arguments go on.
        Object.assign(state, { ...FOUND_COMMAND_ENDED, commandPosition: false });
        return false;
      }
    }
    if (state.environment) {
      const literal = this.#literal();
      if (state.optionArgument) {
        // The word an option of env takes (a token in it errs toward refusing); what -S splits names the command.
        state.optionArgument = undefined;
        if (!literal.whole) return this.#refuseWord(REFUSED.commandName, false);
        if (state.environment === 'split') {
          state.environment = undefined;
          const parts = literal.text.split(/\s+/);
          if (parts.some((part) => isShell(part) || EVALUATING.has(part))) state.refusing = REFUSED.shellScript;
          else if (parts.some((part) => interpreterOf(part) !== undefined)) state.refusing = REFUSED.interpreterProgram;
        } else state.environment = true;
        return false;
      }
      // Any NAME=value word of env's arguments (a later one errs toward refusing); BASH_FUNC_… defines a function for a child bash.
      const fixed = /^([A-Za-z_][A-Za-z0-9_]*)(?:=|%%=)/.exec(literal.text);
      if (fixed !== null) return (isShellVariable(fixed[1]!) || fixed[1]!.startsWith('BASH_FUNC_')) && this.#refuseWord(REFUSED.shellVariable, false);
      if (literal.whole && literal.text.startsWith('-')) {
        // `-u NAME`, or bundled after options that take none (`env -iC /srv`, `env -iS 'sh -c'`).
        const option = ENV_OPTIONS_WITH_ARGUMENT.has(literal.text) ? literal.text : bundledLastOption(literal.text, (o) => ENV_OPTIONS_WITH_ARGUMENT.has(o));
        if (option !== undefined) {
          state.optionArgument = true;
          if (option === '-S' || option === '--split-string') state.environment = 'split';
        }
        return false;
      }
      // The command env runs: read as a command name (below).
      state.environment = undefined;
      state.commandPosition = true;
    }
    if (state.wrapper) {
      const wrapper = state.wrapper;
      const literal = this.#literal();
      if (wrapper.code) {
        // The command string flock -c runs with sh -c.
        wrapper.code = false;
        return this.#refuseWord(REFUSED.runsCommand, false);
      }
      if (wrapper.argument) {
        // The word an option of the wrapper takes (a token in it errs toward refusing).
        wrapper.argument = false;
        if (state.xargs?.replaceNext) state.xargs = { replace: literal.text };
        return !literal.whole && this.#refuseWord(wrapper.directory ? REFUSED.directory : REFUSED.commandName, false);
      }
      if (literal.whole && literal.text.startsWith('-') && literal.text !== '-') {
        // An option that takes the next word, alone or last in a bundle (`sudo -Eu deploy`, `doas -nu deploy`).
        const spec = WRAPPERS[wrapper.command]!;
        const option = bundledLastOption(literal.text, (o) => spec.arguments.includes(o) || (spec.code?.includes(o) ?? false)) ?? literal.text;
        wrapper.argument = spec.arguments.includes(option);
        wrapper.code = spec.code?.includes(option);
        wrapper.directory = spec.directories?.includes(option);
        if (state.xargs !== undefined) {
          // xargs -I R, -IR, -i[R], --replace[=R], also after options that take no value (-0I R, -rI{}): R (by default {}) stands for each line read.
          const replace = /^(?:-[0rtpxo]*I(.+)|-[0rtpxo]*i(.*)|--replace(?:=(.*))?)$/.exec(literal.text);
          if (option === '-I') state.xargs = { replaceNext: true };
          else if (replace !== null) state.xargs = { replace: replace[1] || replace[2] || replace[3] || '{}' };
        }
        return false;
      }
      // sudo [VAR=value…] COMMAND sets the variables for the command it runs (sudoers lets it for a command matched by ALL
      // or tagged SETENV, even ones it would otherwise strip), as env does: `sudo PATH={{…}} ls`, `sudo HOME={{…}} git status`.
      const assigned = wrapper.command === 'sudo' ? /^([A-Za-z_][A-Za-z0-9_]*)(?:=|%%=)/.exec(literal.text)?.[1] : undefined;
      if (assigned !== undefined) return (isShellVariable(assigned) || assigned.startsWith('BASH_FUNC_')) && this.#refuseWord(REFUSED.shellVariable, false);
      if (wrapper.operands > 0) {
        // Its own operand (timeout's duration, flock's file): a value there chooses no program. (flock finds its -c by
        // position, after the file: a value `-cCMD` there is taken for an option and runs nothing.) chroot's directory
        // is the root every program it runs is found in, as cd's is the directory later commands run in.
        wrapper.operands--;
        if (wrapper.command === 'direnv' && wrapper.operands === 1) {
          // direnv's subcommand: exec runs the command after the directory; allow, permit and grant trust the .envrc of theirs.
          if (!literal.whole) return this.#refuseWord(REFUSED.commandName, false);
          if (literal.text !== 'exec') {
            state.wrapper = undefined;
            if (/^(?:allow|permit|grant)$/.test(literal.text)) state.refusing = REFUSED.directory;
          }
          return false;
        }
        return (
          (wrapper.command === 'chroot' || wrapper.command === 'direnv' || wrapper.command === 'envdir') &&
          !literal.whole &&
          this.#refuseWord(REFUSED.directory, false)
        );
      }
      // The command the wrapper runs: read as a command name (below).
      state.wrapper = undefined;
      state.commandPosition = true;
    }
    if (state.refusing) {
      const literal = this.#literal();
      const start = this.#i;
      this.#refuseWord(state.refusing, false);
      // `source /dev/stdin`, `. /dev/fd/0`: the file run is the command's input; `eval "$(cat)"`: what runs is what a substitution read from it.
      if (state.refusing === REFUSED.evaluated) this.#readsInput(state, literal, this.#s.slice(start, this.#i), true);
      return true;
    }
    if (this.#containerNamedLikeProgram(state)) {
      // A container or image named like a shell or interpreter (`docker exec sh timeout 5 …`, `docker run node env …`), and
      // the program run in it, a wrapper, env, git…: read as a command name, below.
      state.shell = undefined;
      state.interpreter = undefined;
      state.commandPosition = true;
    }
    if (state.shell) {
      const literal = this.#literal();
      if (state.shell.arguments > 0) {
        // The argument of -o, -O (also in a group, `-eo pipefail`), --rcfile or --init-file; the script comes after it.
        state.shell.arguments--;
        return this.#refuseWord(REFUSED.shellScript, false);
      }
      // A fixed option (`-c`, `-eu`, `--`, `+x`) holds no token; a word with one, or the first operand, is refused.
      if (literal.whole && /^[-+]/.test(literal.text) && !state.shell.endOfOptions) {
        if (/^-[A-Za-z]*c/.test(literal.text)) state.shell.command = true;
        if (/^-[A-Za-z]*s/.test(literal.text)) state.shell.stdin = true;
        if (literal.text === '--') state.shell.endOfOptions = true;
        if (SHELL_LONG_OPTIONS_WITH_ARGUMENT.has(literal.text)) state.shell.arguments++;
        else if (/^[-+][A-Za-z]+$/.test(literal.text)) state.shell.arguments += (literal.text.match(/[oO]/g) ?? []).length;
        return false;
      }
      if (state.shell.container && literal.whole && (isShell(literal.text) || interpreterOf(literal.text) !== undefined)) {
        // The container bore the shell's name (`docker exec sh sh -c …`): the command run starts here.
        state.shell = isShell(literal.text) ? { arguments: 0 } : undefined;
        if (!isShell(literal.text)) state.interpreter = newInterpreter(interpreterOf(literal.text)!);
        return false;
      }
      // With -s the operands are the positional parameters of a script the shell reads from its
      // input, which stays its script (`sh -s -- prod <<EOF`, `… | bash -s x`). After `--` they are
      // values (`curl … | bash -s -- {{…}}`); before it a value `-c` would make the next operand
      // the command string, so a token in the first operand is refused.
      if (state.shell.stdin && state.shell.command !== true) {
        const endOfOptions = state.shell.endOfOptions === true;
        state.shell = undefined;
        state.input = true;
        return !endOfOptions && this.#refuseWord(REFUSED.shellScript, false);
      }
      // The script file: `bash /dev/stdin` reads it from its input as `bash -s` does; later words are its positional parameters.
      // Under xargs -I, a script or -c string holding the replace string gets what xargs reads spliced into it.
      // A -c string built by a substitution (`sh -c "$(cat)"`) runs what that read from the shell's input.
      const start = this.#i;
      const replace = state.xargs?.replace;
      const command = state.shell.command === true;
      state.shell = undefined;
      this.#refuseWord(REFUSED.shellScript, false);
      const text = this.#s.slice(start, this.#i);
      if (replace !== undefined && text.includes(replace)) state.input = true;
      this.#readsInput(state, literal, text, command);
      // A fixed -c string that runs its positional parameters as code or as a command (`sh -c '"$@"' sh {{…}}`,
      // `sh -c 'eval "$1"' sh {{…}}`): the words after it are what it runs.
      // Under xargs, its positional parameters are what xargs reads (`… | xargs sh -c 'eval "$1"' sh`): that input too.
      // One that runs what it reads from its input (`sh -c 'read -r x; $x'`): that input is code, as for sh -s.
      if (command && literal.whole && runsInput(literal.text)) state.input = true;
      if (command && literal.whole)
        for (const name of runsVariables(literal.text, new Set(this.#copiedVariables().keys())))
          for (const origin of this.#copiedVariables().get(name)!) this.#runVariables.add(origin);
      // One in double quotes that also expands something of the template's (`sh -c "eval \$1 $PWD"`) is not read: an escaped
      // reference in it to a positional parameter or to a variable holding a value errs toward running it.
      if (command && !literal.whole)
        for (const [, name] of text.matchAll(ESCAPED_REFERENCE)) for (const origin of this.#copiedVariables().get(name!) ?? []) this.#runVariables.add(origin);
      if (command && (literal.whole ? runsPositional(literal.text) : /\\\$\{?[0-9@*]/.test(text))) {
        state.refusing = REFUSED.positionalCode;
        if (state.xargs !== undefined) state.input = true;
      }
      return true;
    }
    if (state.interpreter) return this.#interpreterWord(state, state.interpreter);
    if (state.git) return this.#gitWord(state, state.git);
    if (state.naming) return this.#namingWord(state.naming);
    if (state.awk) return this.#awkWord(state.awk);
    if (state.ssh) return this.#sshWord(state, state.ssh);
    if (state.sed) return this.#sedWord(state.sed);
    if (state.commandOptions)
      return state.commandOptions.command === 'make'
        ? this.#makeWord(state, state.commandOptions)
        : state.commandOptions.command === 'rake'
          ? this.#rakeWord(state, state.commandOptions)
          : state.commandOptions.command.startsWith('rails')
            ? this.#railsWord(state, state.commandOptions)
            : state.commandOptions.command === 'rspec' || state.commandOptions.command === 'cucumber'
              ? this.#rspecWord(state, state.commandOptions)
              : state.commandOptions.command === 'tar'
                ? this.#tarWord(state, state.commandOptions)
                : state.commandOptions.command === 'mvn' || state.commandOptions.command === 'gradle'
                  ? this.#buildToolWord(state, state.commandOptions)
                  : this.#commandOptionsWord(state.commandOptions);
    if (state.packages) {
      // Past the subcommand that runs a program (bundle exec, poetry run), the word is read as a command name, below.
      const consumed = this.#packageWord(state, state.packages);
      if (consumed || !state.commandPosition) return consumed;
    }
    if (state.container) {
      const literal = this.#literal();
      if (state.container.entrypoint) return this.#entrypointWord(state, state.container.entrypoint, literal);
      // docker compose's options before its subcommand (`docker compose -f {{…}} up`); the subcommand is read below.
      if (state.container.compose) {
        const consumed = this.#composeWord(state, state.container.compose, literal);
        if (consumed !== undefined) return consumed;
        // Compose's subcommand: a later `compose` is one of its operands (`docker compose logs compose -f {{…}}`).
        state.container.compose = undefined;
        state.container.own = { subcommand: true };
      } else if (PROGRAM_TOOLS.has(state.container.tool) && state.container.run === undefined && !state.container.own?.subcommand) {
        if (literal.whole && literal.text === 'compose') {
          state.container.compose = {};
          return false;
        }
        // The tool's own subcommand, unless the word may be an option's value (`docker -l debug compose`: debug is --log-level's).
        state.container.own ??= {};
        const own = state.container.own;
        // A value there, past no option that may take it (`docker {{…}} compose up`), is the subcommand or an option of the
        // tool's own (`--config=/tmp/planted`, whose cli-plugins/docker-compose runs at `docker compose`).
        if (!own.afterOption && literal.text === '' && !literal.whole) return this.#refuseWord(REFUSED.containerOption, false);
        own.subcommand = literal.whole && !literal.text.startsWith('-') && !own.afterOption;
        own.afterOption = literal.whole && /^-/.test(literal.text) && !literal.text.includes('=') && !CONTAINER_TOOL_GLOBAL_FLAGS.has(literal.text);
        if (own.subcommand && literal.text === 'stack') own.stack = 'stack';
      } else if (state.container.own?.stack !== undefined && this.#stackWord(state, state.container.own, literal)) return true;
      // Surely the tool's own option (docker run, create, exec before the image): a token at the start of -e's value names the variable.
      const known = state.container.run?.operands === 0;
      if (state.container.envNext) {
        state.container.envNext = false;
        const refusal = containerEnvRefusal(literal, known);
        return refusal !== undefined && this.#refuseWord(refusal, false);
      }
      if (state.container.runs && (literal.text === '-e' || literal.text === '--env') && literal.whole) {
        state.container.envNext = true;
        return false;
      }
      const attachedEnv = state.container.runs ? /^(?:--env=|-e=?(?=[A-Za-z_]|$))/.exec(literal.text) : null;
      if (attachedEnv !== null) {
        const refusal = containerEnvRefusal({ ...literal, text: literal.text.slice(attachedEnv[0].length) }, known);
        if (refusal !== undefined) return this.#refuseWord(refusal, false);
      }
      // kubectl and oc read their options anywhere before `--`, before their subcommand too (exec's are read below).
      const kubectl = state.container.tool === 'kubectl' || state.container.tool === 'oc';
      if (kubectl && !state.container.runs && literal.whole && literal.text === '--' && !state.container.kubectlValue) {
        // After `--` the words of a subcommand that runs no command are its operands, never options (`kubectl get pods -- {{…}}`).
        state.container = undefined;
        return false;
      }
      if (kubectl && state.container.run === undefined && this.#kubectlWord(state, state.container, literal)) return true;
      // docker --config {{…}} ps, podman --runtime {{…}} run img (their own options, before the subcommand), nsenter --wd={{…}},
      // systemd-run -p ExecStartPre={{…}}, lxc-attach -v PATH={{…}}.
      const toolOptions = CONTAINER_TOOL_OPTIONS[state.container.tool];
      if (
        toolOptions !== undefined &&
        (!PROGRAM_TOOLS.has(state.container.tool) || (state.container.run === undefined && !state.container.runs)) &&
        this.#toolOptionWord(state.container, toolOptions, literal)
      )
        return true;
      if (state.container.entrypointNext || literal.text.startsWith('--entrypoint=')) {
        // The program the container's arguments go to: a value there chooses it.
        state.container.entrypointNext = false;
        const entrypoint = literal.text.replace(/^--entrypoint=/, '');
        // The words after the image are the entry point's arguments, no program; an empty one (`--entrypoint ""`) clears the
        // image's, and the first of them is the program run.
        if (entrypoint !== '') delete state.container.run;
        if (!literal.whole) return this.#refuseWord(REFUSED.commandName, false);
        state.container.entrypoint = entrypointOf(entrypoint);
        if (state.container.entrypoint === undefined) delete state.container.entrypoint;
        return false;
      }
      if (literal.whole && literal.text === '--entrypoint') {
        state.container.entrypointNext = true;
        return false;
      }
      const run = state.container.run;
      const operandsBefore = run?.operands;
      // The word an option of run, create or exec takes (`--name sh`, `oc rsh --shell /bin/bash`): no shell or program run.
      const optionValue = run !== undefined && run.value !== false;
      if (run !== undefined && this.#containerRunWord(run, literal)) return true;
      if (optionValue) return false;
      // The word is an operand of run, create or exec at the place of the program, or at one of the places it may be.
      const first = run?.latest ? 1 : 2;
      let named = false;
      const program = run !== undefined && literal.whole && run.operands !== operandsBefore && run.operands >= first && run.operands <= first + run.uncertain;
      // kubectl exec POD PROGRAM… without `--`: kubectl goes on reading options among the program's words.
      const tail = run?.kubectl === true && run.operands !== operandsBefore ? {} : undefined;
      // A shell or interpreter not surely the program may have been the container's or image's name (`docker exec sh sh -c …`).
      const container = !(program && run.uncertain === 0);
      if (literal.whole && isShell(literal.text)) {
        // The shell run in the container (`docker exec c sh -c …`, `kubectl exec pod -- bash -c …`): its options and script follow.
        state.container = undefined;
        state.kubectlTail = tail;
        state.shell = { arguments: 0, container };
      } else if (literal.whole && state.container.runs && interpreterOf(literal.text) !== undefined) {
        // An interpreter run in the container (`docker exec app python3 -c …`): its options and program follow. The
        // container may bear its name (`docker exec python python3 -c …`): an interpreter or shell as its first operand starts afresh.
        state.container = undefined;
        state.kubectlTail = tail;
        state.interpreter = { ...newInterpreter(interpreterOf(literal.text)!), container };
      } else if (literal.whole && state.container.runs && packageToolOf(literal.text) !== undefined) {
        // A package manager run in the container (`docker exec app npm install …`): its subcommand and operands follow.
        state.container = undefined;
        state.kubectlTail = tail;
        state.packages = newPackages(packageToolOf(literal.text)!);
      } else if (literal.whole && literal.text === '--' && (state.container.run?.operands !== 0 || state.container.run.latest === true)) {
        // kubectl exec POD -- COMMAND, nsenter … -- COMMAND, and after kubectl exec -f FILE or podman exec -l, which name no
        // container: the next word names the program run (docker run -- IMAGE: the image).
        state.container = undefined;
        state.commandPosition = true;
      } else if (program && run.uncertain === 0) {
        // Surely the program run in the container (`docker exec app timeout 5 …`, `docker run img env …`): read as a command
        // name, below, with every rule of the host (a wrapper's or env's command, git's options, make's variables).
        state.container = undefined;
        state.kubectlTail = tail;
        state.commandPosition = true;
        named = true;
      } else if (program && runsByRules(literal.text)) {
        // Perhaps the program (an option the check does not know may have taken a word before): it could run the command a
        // later word names, or read one as code, and which word is which the check cannot tell: every later token is refused.
        state.refusing = REFUSED.runsCommand;
        return false;
      } else if (
        literal.whole &&
        (RUNNING_SUBCOMMANDS.has(literal.text) || (PROGRAM_TOOLS.has(state.container.tool) && PROGRAM_SUBCOMMANDS.has(literal.text)))
      ) {
        state.container.runs = true;
        // kubectl exec POD COMMAND… (without `--`; oc exec and oc rsh alike): the pod, then the program run in it, read as
        // the program of docker exec is, with kubectl's options among them.
        if ((state.container.tool === 'kubectl' || state.container.tool === 'oc') && (literal.text === 'exec' || literal.text === 'rsh'))
          state.container.run ??= { operands: 0, value: false, uncertain: 0, image: false, kubectl: literal.text === 'exec' ? true : 'rsh' };
        if (PROGRAM_TOOLS.has(state.container.tool) && PROGRAM_SUBCOMMANDS.has(literal.text))
          state.container.run ??= {
            operands: 0,
            value: false,
            uncertain: 0,
            latest: state.container.tool === 'podman' && literal.text === 'exec' ? false : undefined,
            image: literal.text !== 'exec',
          };
      }
      // The program surely named falls through to be read as a command name.
      if (!named) return false;
    }
    if (state.testing) {
      const name = state.testing.next;
      const literal = this.#literal();
      state.testing.next = literal.whole && (literal.text === '-v' || literal.text === '-R');
      return name && this.#refuseWord(REFUSED.variableName, false);
    }
    if (state.declaring) {
      const literal = this.#literal();
      // The name is fixed text before the first `=`, quoted or not (`export "X={{…}}"`); bash assigns the rest.
      const fixed = /^([A-Za-z_][A-Za-z0-9_]*)\+?=/.exec(literal.text);
      if (fixed) {
        const declared = assignedRefusal(fixed[1]!);
        if (declared !== undefined) return this.#refuseWord(declared, true);
        return state.declaring.values && this.#refuseWord(REFUSED.declaredValue, true);
      }
      if (literal.whole && /^[-+][A-Za-z]+$/.test(literal.text)) {
        // For export, -n un-exports; every declaration builtin evaluates a value in (…) for an array.
        const values = /^(?:declare|typeset|local)$/.test(state.declaring.command) ? /[niaA]/ : /[aA]/;
        if (values.test(literal.text)) state.declaring.values = true;
        return false;
      }
      return this.#refuseWord(REFUSED.declaredName, false);
    }
    if (!state.commandPosition) return false;
    if (state.optionArgument) {
      // exec -a NAME: the name the command runs under; the command name comes next.
      state.optionArgument = undefined;
      return this.#refuseWord(REFUSED.commandName, false);
    }
    const literal = this.#literal();
    const prefix = state.prefix;
    state.prefix = undefined;
    // hatch run ENV:CMD runs CMD in the environment ENV, split at the last colon (`a:b:python` runs python; `:python` too, in
    // the system environment).
    const word = literal.whole ? (prefix === 'hatch run' ? literal.text.replace(/^.*:(?=.)/, '') : literal.text) : undefined;
    // An assignment (unquoted name, then = or a subscript) comes before the command name.
    state.commandPosition = assignment !== null;
    if (assignment !== null) return false;
    if (
      prefix === 'function' ||
      (prefix === 'coproc' && word !== undefined && /^[A-Za-z_][A-Za-z0-9_]*$/.test(word) && /^[ \t]*(?:\{[ \t\n]|\()/.test(head.slice(word.length)))
    ) {
      // The name of a function (`function NAME { …; }`) or of a coprocess (`coproc NAME { …; }`):
      // the body that follows (after an optional `()`) is commands.
      state.commandPosition = true;
      if (prefix === 'function' && word !== undefined) this.#defining = word;
      return word === undefined && this.#refuseWord(REFUSED.commandName, false);
    }
    // A command name with a token in it (`{{…}}`, `./bin/{{…}}`, `"$(echo {{…}})"`): the value chooses the program.
    // (A word bash may read as a subscript, `a[…]` or `[…]=`, is refused as one by #command.)
    if (word === undefined) return !SUBSCRIPT_START.test(head) && this.#refuseWord(REFUSED.commandName, false);
    for (const name of this.#inFunctions) {
      if (!this.#functionCalls.has(name)) this.#functionCalls.set(name, new Set());
      this.#functionCalls.get(name)!.add(word);
    }
    if (prefix === 'rails') {
      // The command of rails: runner evaluates its operand as Ruby code, console reads code from its input.
      if (Object.hasOwn(RAILS_COMMANDS, word)) state.interpreter = newInterpreter(RAILS_COMMANDS[word]!);
      // rails new and plugin new apply the application template -m/--template names, app:template the one LOCATION= names:
      // Ruby code, from a file or a URL. rails new reads its options among its operands too (`rails new app --template=…`).
      else if (word === 'new' || word === 'plugin' || word === 'app:template') state.refusing = REFUSED.interpreterProgram;
      // A command it does not have itself (db:seed, assets:precompile, deploy…): rails hands it and the words after it to
      // rake, which reads them as its own.
      else if (!RAILS_OWN_COMMANDS.has(word)) state.commandOptions = { command: 'rake' };
      // Its own commands that load the application (server, test, routes…): -e chooses the environment file loaded.
      else if (!RAILS_DATA_COMMANDS.has(word)) state.commandOptions = { command: /^(?:test|t|test:system|test:all)$/.test(word) ? 'rails test' : 'rails' };
      return false;
    }
    // R CMD BATCH runs R on its file operand, read as Rscript's; R's other tools (INSTALL, build) and any program follow below.
    if (prefix === 'R CMD' && word === 'BATCH') state.interpreter = newInterpreter('Rscript');
    // R CMD INSTALL, build, check: the package built, whose configure script, R code and tests run.
    else if (prefix === 'R CMD' && /^(?:INSTALL|build|check)$/.test(word)) state.refusing = REFUSED.packageCode;
    // R CMD SHLIB, COMPILE: make and the compilers on the files named (their Makevars, a make variable CC=… an argument);
    // LINK: the link command its arguments are; javareconf: the Java and compilers named (JAVA=…), in configure tests; texify: TeX.
    else if (prefix === 'R CMD' && /^(?:SHLIB|COMPILE|LINK|javareconf|texify)$/.test(word)) state.refusing = REFUSED.runsCommand;
    // R CMD Sweave, Stangle: the R code of the file named runs; Rd2pdf, Rdconv, Rd2txt: an Rd file's \Sexpr{} runs R code.
    else if (prefix === 'R CMD' && /^(?:Sweave|Stangle|Rd2pdf|Rdconv|Rd2txt)$/.test(word)) state.refusing = REFUSED.interpreterProgram;
    else if (DECLARATIONS.has(word)) state.declaring = { values: false, command: word };
    else if (word === 'compgen' || word === 'complete') state.refusing = REFUSED.completion;
    else if (word === 'mapfile' || word === 'readarray') state.refusing = REFUSED.arrayBuiltin;
    else if (word === 'trap') state.refusing = REFUSED.trap;
    // cd and pushd choose the directory every later command runs in (its ./deploy.sh, Makefile, package.json, .git).
    else if (word === 'cd' || word === 'pushd') state.refusing = REFUSED.directory;
    else if (EVALUATING.has(word)) state.refusing = REFUSED.evaluated;
    // hash -p PATH NAME chooses the program NAME runs; enable -f FILE loads a builtin from a library, enable -n turns one off.
    else if (word === 'hash' || word === 'enable') state.refusing = REFUSED.commandName;
    else if (isShell(word)) state.shell = { arguments: 0 };
    else if (interpreterOf(word) !== undefined) state.interpreter = newInterpreter(interpreterOf(word)!);
    else if (packageToolOf(word) !== undefined) state.packages = newPackages(packageToolOf(word)!);
    else if (word === 'env' || word.endsWith('/env')) state.environment = true;
    else if (baseName(word) === 'git') state.git = {};
    else if (baseName(word) === 'ssh') state.ssh = { options: true, destination: false };
    else if (baseName(word) === 'sed' || baseName(word) === 'gsed') state.sed = { options: true, program: false, sandbox: false };
    else if (Object.hasOwn(COMMAND_OPTIONS, baseName(word))) state.commandOptions = { command: baseName(word) };
    else if (MAKES.has(baseName(word))) state.commandOptions = { command: 'make' };
    else if (buildToolOf(word) !== undefined) state.commandOptions = { command: buildToolOf(word)! };
    else if (baseName(word) === 'rspec' || baseName(word) === 'cucumber') state.commandOptions = { command: baseName(word) };
    else if (baseName(word) === 'tar' || baseName(word) === 'gtar') state.commandOptions = { command: 'tar' };
    else if (baseName(word) === 'rake') state.commandOptions = { command: 'rake' };
    else if (COMMAND_RUNNERS.has(baseName(word))) {
      state.refusing = REFUSED.runsCommand;
      // Without a command, parallel runs each line it reads as one.
      if (baseName(word) === 'parallel') state.input = true;
    } else if (CONTAINER_TOOLS.has(baseName(word)))
      state.container = {
        runs: !RUNNING_TOOLS.has(baseName(word)),
        tool: baseName(word),
        ...(baseName(word) === 'docker-compose' || baseName(word) === 'podman-compose' ? { compose: {} } : {}),
      };
    else if (this.#callsScript(word, new Set())) state.input = true;
    else if (/^[ \t]*\([ \t]*\)/.test(head.slice(word.length)) && /^[A-Za-z_][A-Za-z0-9_-]*$/.test(word)) this.#defining = word;
    else if (wrapperOf(word) === 'runuser' && !/^\S*(?:[ \t]+[^;&|\n]*?)?[ \t](?:-u|--user)(?:[ \t=]|$)/m.test(head)) state.refusing = REFUSED.runsCommand;
    else if (wrapperOf(word) !== undefined) {
      state.wrapper = { command: wrapperOf(word)!, operands: WRAPPERS[wrapperOf(word)!]!.operands, argument: false };
      if (state.wrapper.command === 'xargs') state.xargs = {};
    } else if (NAMING[word]) state.naming = { command: word, options: true, operands: 0 };
    else if (word === 'test' || word === '[') state.testing = { next: false };
    else if (word === 'find' || word.endsWith('/find')) state.finding = true;
    else if (AWKS.has(word.slice(word.lastIndexOf('/') + 1))) state.awk = { options: true, program: false };
    else if ((word === '-p' || word === '--') && (prefix === 'time' || prefix === 'command')) {
      // `command -p -- x`, `time -- x`: the name follows the end of the options.
      state.commandPosition = true;
      if (word === '-p') state.prefix = prefix;
    } else if (prefix === 'exec' && (word === '--' || (word !== '-' && EXEC_OPTIONS.test(word)))) {
      // `exec -c -a name -- …`: still exec's, whose redirections without a command stay the shell's (execInput).
      state.commandPosition = true;
      state.prefix = 'exec';
      state.optionArgument = word.includes('a');
    } else if (baseName(word) === 'rails') {
      // rails, bin/rails: the next word names the command it runs (a value there chooses it).
      state.commandPosition = true;
      state.prefix = 'rails';
    } else if (baseName(word) === 'spring') {
      // spring, bin/spring: the Rails preloader runs the command its next word names (rails, rake, rspec…), read as a
      // command name with its rules (`spring rails runner …` as rails runner; a value there chooses the command).
      state.commandPosition = true;
    } else if (COMMAND_PREFIXES.has(word) || word === 'function') {
      state.commandPosition = true;
      state.prefix = word;
    }
    return false;
  }

  /**
   * Whether the word is a command with rules of its own (runsByRules: a wrapper, env, git…) right after a container tool's
   * word read as a shell or an interpreter that may have been the container's or image's name (`docker exec sh timeout 5 …`),
   * before any option of it: the program run in the container.
   */
  #containerNamedLikeProgram(state: CommandState): boolean {
    const shell = state.shell;
    const it = state.interpreter;
    const fresh =
      (shell?.container === true && shell.arguments === 0 && shell.command === undefined && shell.stdin === undefined && !shell.endOfOptions) ||
      (it?.container === true && it.operands === 0 && it.options && !it.given && it.next === undefined);
    if (!fresh) return false;
    const literal = this.#literal();
    return literal.whole && !literal.text.startsWith('-') && runsByRules(literal.text);
  }

  /**
   * A word of a container tool with options of CONTAINER_TOOL_OPTIONS: refuses a token in the value of a `choosing` one (the
   * next word, after `=`, or attached to a short one: `nsenter -w/srv/{{…}}`) and a refused variable, or a token naming one, in
   * an `env` one's (`systemd-run -E PATH={{…}}`, `-E {{…}}`). Consumes a refused word and returns true.
   */
  #toolOptionWord(container: NonNullable<CommandState['container']>, table: Readonly<Record<string, 'choosing' | 'env'>>, literal: Literal): boolean {
    const text = literal.text;
    const pending = container.toolValue;
    container.toolValue = undefined;
    let kind: 'choosing' | 'env' | undefined = pending;
    let value: Literal = literal;
    if (kind === undefined) {
      const option = /^--[A-Za-z-]+(?==|$)|^-[A-Za-z]/.exec(text)?.[0];
      kind = option === undefined ? undefined : table[option];
      if (kind === undefined || option === undefined) return false;
      const rest = text.slice(option.length).replace(/^=/, '');
      if (literal.whole && rest === '') {
        container.toolValue = kind;
        return false;
      }
      value = { text: rest, whole: literal.whole };
    }
    const refusal = kind === 'env' ? containerEnvRefusal(value, true) : value.whole ? undefined : REFUSED.containerOption;
    return refusal !== undefined && this.#refuseWord(refusal, false);
  }

  /**
   * A word of docker compose (docker-compose) before its subcommand: refuses a token in what -f/--file, --project-directory
   * and --env-file take (the compose file read: the images, host directories, privileges and commands of its services), in
   * an option or the subcommand, and at the start of a word, where a value could be an option (`docker compose {{…}} up`:
   * `--file=…`); the values of -p, --profile… are data. Consumes a refused word and returns true; undefined for the
   * subcommand, which the caller reads.
   */
  #composeWord(state: CommandState, compose: NonNullable<NonNullable<CommandState['container']>['compose']>, literal: Literal): boolean | undefined {
    const text = literal.text;
    if (compose.next !== undefined) {
      const next = compose.next;
      compose.next = undefined;
      // A compose file read from the input (`docker compose -f - up`): what a pipe or here-document gives it chooses the services.
      if (next === 'choosing' && literal.whole && STANDARD_INPUT.test(text)) state.input = true;
      return next === 'choosing' && !literal.whole && this.#refuseWord(REFUSED.containerOption, false);
    }
    if (!literal.whole) {
      // A data option's value in the same word (`-pjob-{{…}}`, `--profile={{…}}`); anything else could name an option or the subcommand.
      const attached = /^(--[A-Za-z-]+)=|^(-[A-Za-z])(?=.)/.exec(text);
      return COMPOSE_OPTIONS[attached?.[1] ?? attached?.[2] ?? ''] !== 'data' && this.#refuseWord(REFUSED.containerOption, false);
    }
    if (text.startsWith('-') && text !== '-') {
      if (!text.includes('=')) compose.next = COMPOSE_OPTIONS[text];
      if (STANDARD_INPUT.test(/^(?:-f=?|--file=)([\s\S]*)$/.exec(text)?.[1] ?? '')) state.input = true;
      return false;
    }
    return undefined;
  }

  /**
   * A word of docker stack, after the subcommand: in `docker stack deploy` (or `up`), refuses a token anywhere in the compose
   * file -c/--compose-file names, whose services (their images, mounts, privileges, commands) the swarm runs, and takes `-`
   * for the input read as that file. Consumes a refused word and returns true.
   */
  #stackWord(state: CommandState, own: NonNullable<NonNullable<CommandState['container']>['own']>, literal: Literal): boolean {
    const text = literal.text;
    if (own.stack === 'stack') {
      if (literal.whole && (text === 'deploy' || text === 'up')) own.stack = 'deploy';
      return false;
    }
    if (own.stack === 'file') {
      own.stack = 'deploy';
      if (literal.whole && STANDARD_INPUT.test(text)) state.input = true;
      return !literal.whole && this.#refuseWord(REFUSED.containerOption, false);
    }
    if (literal.whole && (text === '-c' || text === '--compose-file')) own.stack = 'file';
    else if (/^(?:-c=?|--compose-file=)/.test(text)) {
      if (literal.whole && STANDARD_INPUT.test(text.replace(/^(?:-c=?|--compose-file=)/, ''))) state.input = true;
      return !literal.whole && this.#refuseWord(REFUSED.containerOption, false);
    }
    return false;
  }

  /**
   * A word of kubectl or oc outside exec's options (before the subcommand, or any word of another subcommand, before `--`):
   * kubectl reads its options anywhere there, so a token in the value of one of KUBECTL_EXEC_CHOOSING (a kubeconfig, whose
   * credential plugin is a command kubectl runs on the host, or a file it writes) is refused, as is one where a value could
   * make an option (`kubectl logs {{…}}`: `--kubeconfig=…`), unless the word is the value of an option known to take one
   * (`kubectl logs -n {{…}} pod`; `-f` takes none in `kubectl logs`, where it is --follow). Also the words after the program of
   * kubectl exec named without `--` (`kubectl exec pod ./deploy.sh {{…}}`), given `kubectlTail`. Consumes a refused word and
   * returns true.
   */
  #kubectlWord(
    state: CommandState,
    options: { kubectlValue?: boolean | 'choosing' | 'image' | 'manifest'; kubectlSubcommand?: string },
    literal: Literal,
  ): boolean {
    const text = literal.text;
    if (options.kubectlValue) {
      const value = options.kubectlValue;
      options.kubectlValue = undefined;
      // A manifest read from the input (`kubectl apply -f -`): what a pipe or here-document gives it chooses the pods, as a program read from it runs.
      if (value === 'manifest' && literal.whole && STANDARD_INPUT.test(text)) state.input = true;
      // The image kubectl run or debug runs (`--image {{…}}`), whole: a tag after fixed text (`--image app:{{…}}`) chooses no other.
      const chosen = value === 'choosing' || value === 'manifest' || (value === 'image' && text === '');
      return chosen && !literal.whole && this.#refuseWord(REFUSED.containerOption, false);
    }
    // Before the subcommand too (`kubectl -f ./k8s/{{…}} apply`: kubectl reads the options of its subcommand there), where
    // which subcommand follows is not known yet: read as a manifest, erring toward refusing.
    const manifest =
      KUBECTL_MANIFEST_SUBCOMMANDS.has(options.kubectlSubcommand ?? '') || (options.kubectlSubcommand === undefined && options !== state.kubectlTail);
    if (literal.whole) {
      const follow = text === '-f' && options.kubectlSubcommand === 'logs';
      if (text === '--image') options.kubectlValue = 'image';
      else if (manifest && KUBECTL_MANIFEST_OPTION.whole.test(text)) options.kubectlValue = 'manifest';
      else if (options.kubectlSubcommand === 'patch' && KUBECTL_PATCH_OPTION.whole.test(text)) options.kubectlValue = 'manifest';
      else if (KUBECTL_SPEC_OPTION.whole.test(text)) options.kubectlValue = 'manifest';
      else if (manifest && STANDARD_INPUT.test(KUBECTL_MANIFEST_OPTION.attached.exec(text)?.[1] ?? '')) state.input = true;
      else if (KUBECTL_VALUES.has(text) && !follow) options.kubectlValue = KUBECTL_EXEC_CHOOSING.has(text) ? 'choosing' : true;
      // `set` and the word after it (`set env`, `set image`): what its NAME=value operands are.
      else if (!text.startsWith('-')) options.kubectlSubcommand = options.kubectlSubcommand === 'set' ? `set ${text}` : (options.kubectlSubcommand ?? text);
      return false;
    }
    // kubectl set env RESOURCE NAME=value (also -e/--env=): the pods' programs get the variable, as docker -e gives it.
    const env = options.kubectlSubcommand === 'set env' ? containerEnvRefusal({ ...literal, text: text.replace(/^(?:--env=|-e)/, '') }, false) : undefined;
    if (env !== undefined) return this.#refuseWord(env, false);
    // kubectl set image RESOURCE CONTAINER={{…}}: the image the pods run, whole (a tag after fixed text chooses no other).
    if (options.kubectlSubcommand === 'set image' && /^[^=]+=$/.test(text)) return this.#refuseWord(REFUSED.containerOption, false);
    // kubectl apply -f/srv/{{…}}, -Rf/srv/{{…}}, --filename={{…}}, -k={{…}}: the manifest applied, anywhere in the value.
    if (manifest && KUBECTL_MANIFEST_OPTION.attached.test(text)) return this.#refuseWord(REFUSED.containerOption, false);
    // kubectl patch deployment/app --patch='{"spec":…{{…}}…}': a value can add a field (an image, a command) to the patch.
    if (options.kubectlSubcommand === 'patch' && KUBECTL_PATCH_OPTION.attached.test(text)) return this.#refuseWord(REFUSED.containerOption, false);
    if (KUBECTL_SPEC_OPTION.attached.test(text)) return this.#refuseWord(REFUSED.containerOption, false);
    const attached = /^(--[A-Za-z0-9-]+)=/.exec(text)?.[1];
    if (attached === '--image') return text === '--image=' && this.#refuseWord(REFUSED.containerOption, false);
    if (attached !== undefined) return KUBECTL_EXEC_CHOOSING.has(attached) && this.#refuseWord(REFUSED.containerOption, false);
    // A short option with its value in the word (`-n{{…}}`) names no option; `{{…}}`, `--{{…}}`, `-{{…}}` could.
    return !/^-[A-Za-z]/.test(text) && (text === '' || text.startsWith('-')) && this.#refuseWord(REFUSED.containerOption, false);
  }

  /**
   * A word of docker/podman run or create (or compose run) after an --entrypoint that is a shell or
   * an interpreter, up to the image: the options of the tool (some taking the next word as their
   * value, data), then the image, after which the words are the entry point's arguments, read as
   * a shell's or an interpreter's. An option the check does not know could take the next word or
   * not, so which word is the image is uncertain: every later token is refused.
   */
  #entrypointWord(state: CommandState, entrypoint: NonNullable<NonNullable<CommandState['container']>['entrypoint']>, literal: Literal): boolean {
    if (entrypoint.program === 'uncertain') return this.#refuseWord(REFUSED.entrypoint, false);
    if (entrypoint.value) {
      const value = entrypoint.value;
      entrypoint.value = false;
      // The value of an option of CONTAINER_CHOOSING (-w, -v, --cidfile…), as before an --entrypoint.
      const refusal = value === 'env' ? containerEnvRefusal(literal, true) : value === 'choosing' && !literal.whole ? REFUSED.containerOption : undefined;
      return refusal !== undefined && this.#refuseWord(refusal, false);
    }
    const text = literal.text;
    // `-{{…}}`: a value after the dash makes an option of docker's, not the image.
    if (text.startsWith('-') && (text !== '-' || !literal.whole)) {
      const long = /^(--[A-Za-z0-9-]+)(=?)/.exec(text);
      if (long !== null) {
        const [, option = '', equals] = long;
        // `--env=…`, `--name=…`: data; a token before the = could make another option.
        if (equals === '=' && option === '--env') {
          const refusal = containerEnvRefusal({ ...literal, text: text.slice('--env='.length) }, true);
          return refusal !== undefined && this.#refuseWord(refusal, false);
        }
        if (equals === '=' && CONTAINER_CHOOSING.has(option) && !literal.whole) return this.#refuseWord(REFUSED.containerOption, false);
        if (equals === '=') return !CONTAINER_RUN_VALUES.has(option) && !literal.whole && this.#refuseWord(REFUSED.entrypoint, false);
        if (!literal.whole) return this.#refuseWord(REFUSED.entrypoint, false);
        if (CONTAINER_RUN_VALUES.has(option)) entrypoint.value = option === '--env' ? 'env' : CONTAINER_CHOOSING.has(option) ? 'choosing' : true;
        else if (!CONTAINER_RUN_FLAGS.has(option)) entrypoint.program = 'uncertain';
        return false;
      }
      // Short options, bundled (`-it`, `-itu 0`): one that takes a value takes the rest of the word or, last, the next word.
      for (let k = 1; k < text.length; k++) {
        const option = `-${text[k]}`;
        if (CONTAINER_RUN_VALUES.has(option)) {
          if (k + 1 === text.length && literal.whole) entrypoint.value = option === '-e' ? 'env' : CONTAINER_CHOOSING.has(option) ? 'choosing' : true;
          // -e's value in the same word (`-eNAME=…`, `-e{{…}}`), or a choosing option's (`-w/tmp/{{…}}`).
          const refusal =
            option === '-e'
              ? containerEnvRefusal({ ...literal, text: text.slice(k + 1) }, true)
              : CONTAINER_CHOOSING.has(option) && !literal.whole
                ? REFUSED.containerOption
                : undefined;
          return refusal !== undefined && this.#refuseWord(refusal, false);
        }
        if (!CONTAINER_RUN_FLAGS.has(option)) {
          // An option the check does not know (`--{{…}}`: the value names it).
          entrypoint.program = 'uncertain';
          return !literal.whole && this.#refuseWord(REFUSED.entrypoint, false);
        }
      }
      return !literal.whole && this.#refuseWord(REFUSED.entrypoint, false);
    }
    // The image: a value at its start could be an option, and the image the word after it.
    if (!literal.whole && text === '') return this.#refuseWord(REFUSED.entrypoint, false);
    const program = entrypoint.program;
    state.container = undefined;
    if ('shell' in program) state.shell = { arguments: 0 };
    else if ('packages' in program) state.packages = newPackages(program.packages);
    // The arguments of a wrapper, env, git, make… entry point: which of them it runs or reads as code, the check does not follow.
    else if ('runs' in program) state.refusing = REFUSED.runsCommand;
    else state.interpreter = newInterpreter(program.interpreter);
    return false;
  }

  /**
   * A word of docker, podman or nerdctl run, create or exec (before an --entrypoint): their options, some taking the
   * next word, then the image or container, then the program run in it, a command name: refuses a token in that word
   * (consuming it, returning true), or in any of the words after the image that could be it when options the check
   * does not know came before. The shell or interpreter that word names is read by the caller.
   */
  #containerRunWord(run: NonNullable<NonNullable<CommandState['container']>['run']>, literal: Literal): boolean {
    const text = literal.text;
    const takesValue = run.kubectl ? KUBECTL_EXEC_VALUES : CONTAINER_RUN_VALUES;
    const flags = run.kubectl ? KUBECTL_EXEC_FLAGS : CONTAINER_RUN_FLAGS;
    const choosing = run.kubectl ? KUBECTL_EXEC_CHOOSING : CONTAINER_CHOOSING;
    if (run.value) {
      const chosen = run.value === 'choosing';
      run.value = false;
      return chosen && !literal.whole && this.#refuseWord(REFUSED.containerOption, false);
    }
    // `--` ends the options: the image or container follows.
    if (run.operands === 0 && literal.whole && text === '--') return false;
    // kubectl reads its options after the pod too, up to the program.
    if ((run.operands === 0 || run.kubectl === true) && text.startsWith('-') && !(literal.whole && text === '-') && !(literal.whole && text === '--')) {
      const long = /^(--[A-Za-z0-9-]+)(=?)/.exec(text);
      if (long?.[2] === '=') {
        // podman exec --latest=true (a boolean flag takes a value after =): as --latest; --latest=false names none.
        if (run.latest !== undefined && long[1] === '--latest') run.latest = !/^--latest=(?:false|f|0)$/i.test(text);
        // podman --rootfs=true, as --rootfs (a value after the = may make it true).
        if (long[1] === '--rootfs') run.rootfs = !literal.whole || !/^--rootfs=(?:false|f|0)$/i.test(text);
        if (run.kubectl && long[1] === '--filename') run.latest = true;
        return choosing.has(long[1]!) && !literal.whole && this.#refuseWord(REFUSED.containerOption, false);
      }
      if (!literal.whole) {
        // Short options with a value attached (`-w{{…}}`, `-eREF={{…}}`): that option's value.
        const letters = /^-([A-Za-z0-9]+)/.exec(text)?.[1] ?? '';
        for (let k = 0; k < letters.length; k++) {
          const option = `-${letters[k]}`;
          if (takesValue.has(option)) {
            // -e's value, bundled (`-ite{{…}}`, `-iteREF={{…}}`): the variable's name and value.
            if (option === '-e') {
              const refusal = containerEnvRefusal({ ...literal, text: text.slice(k + 2) }, true);
              return refusal !== undefined && this.#refuseWord(refusal, false);
            }
            return choosing.has(option) && this.#refuseWord(REFUSED.containerOption, false);
          }
          if (!flags.has(option)) break;
        }
        // A value naming the option (`--{{…}}`, `-{{…}}`, `-it{{…}}`): it could make any, --privileged or -v /:/host among them.
        return this.#refuseWord(REFUSED.containerOption, false);
      }
      if (long !== null) {
        // podman exec --latest (-l): the container last started, no operand names it.
        if (run.latest !== undefined && long[1] === '--latest') {
          run.latest = true;
          return false;
        }
        // podman run --rootfs: the first operand is a directory on the host, the container's whole filesystem, no image.
        // (After an --entrypoint it stays an option the check does not know: every later token is refused there.)
        if (long[1] === '--rootfs') {
          run.rootfs = true;
          return false;
        }
        // kubectl exec -f FILE: the file names the pod, no operand does.
        if (run.kubectl && long[1] === '--filename') run.latest = true;
        if (takesValue.has(long[1]!)) run.value = choosing.has(long[1]!) ? 'choosing' : true;
        else if (!flags.has(long[1]!)) run.uncertain++;
        return false;
      }
      // Short options, bundled (`-it`, `-itu 0`): one that takes a value takes the rest of the word or, last, the next word.
      for (let k = 1; k < text.length; k++) {
        const option = `-${text[k]}`;
        if (option === '-l' && run.latest !== undefined) {
          run.latest = true;
          continue;
        }
        if (takesValue.has(option)) {
          run.value = k + 1 === text.length && (choosing.has(option) ? 'choosing' : true);
          if (run.kubectl && option === '-f') run.latest = true;
          return false;
        }
        if (!flags.has(option)) {
          run.uncertain++;
          return false;
        }
      }
      return false;
    }
    run.operands++;
    // A value at the start of the image of run or create (`docker run {{…}} ./deploy.sh`): it names the image run, whose
    // code runs, or an option (--workdir=…). At the start of the container of exec (`docker exec {{…}} app ./x`), it names
    // the container the program runs in, or an option (--user=root, --workdir=/tmp/planted) that makes the next word the
    // container and the one after it the program. kubectl reads options among its operands, so a value at the start of the
    // pod could be one too (--kubeconfig=…, whose credential plugin runs on the host).
    if (run.operands === 1 && ((run.image !== undefined && !run.latest) || run.kubectl !== undefined) && !literal.whole && text === '')
      return this.#refuseWord(REFUSED.containerOption, false);
    // The directory podman --rootfs runs, anywhere in the word: a value (`/srv/roots/../../tmp/planted`) chooses every program in it.
    if (run.operands === 1 && run.rootfs === true && !literal.whole) return this.#refuseWord(REFUSED.containerOption, false);
    const first = run.latest ? 1 : 2;
    return run.operands >= first && run.operands <= first + run.uncertain && !literal.whole && this.#refuseWord(REFUSED.commandName, false);
  }

  /**
   * An argument of a package manager (PACKAGE_TOOLS): refuses it (consuming it, returning true)
   * where a value would name the package, module or version installed or run, the subcommand, an
   * option or an option's value (before `--`), or start a word that could be an option.
   */
  #packageWord(state: CommandState, p: NonNullable<CommandState['packages']>): boolean {
    const spec = PACKAGE_TOOLS[p.tool]!;
    const literal = this.#literal();
    const text = literal.text;
    const refuse = (): boolean => this.#refuseWordOrReplaced(state, literal, REFUSED.packageCode);
    const replace = state.xargs?.replace;
    if (p.rest) return false;
    if (p.requirements) {
      // `pip install -r -`, `-r /dev/stdin`: pip reads the requirements (and the options in them) from its input.
      p.requirements = undefined;
      if (literal.whole && requirementsFromInput(text)) state.input = true;
    }
    if (p.value !== undefined) {
      // An option's value: data (go test -run, pip --target), or maybe a package, an index, a program (--registry, --index-url, --with, -p).
      const value = p.value;
      p.value = undefined;
      if (value === 'data') return false;
      if (value === 'text') return !literal.whole && (text === '' || text.startsWith('-')) && this.#refuseWord(REFUSED.packageCode, false);
      if (refuse()) return true;
      // Before the program of bundle exec, conda run… (or the package npx, uvx, pipx run run, whose words are its own): the
      // option's value (`-n env`, `uvx --python 3.12 python -c …`), or, if it took none, the program, and then the word read
      // as the program next is its argument: erring toward refusing. A word like an option is one.
      if ((p.operands === 'command' || (p.operands === 'runs' && spec.restData && !p.ran)) && !text.startsWith('-')) return false;
    }
    if (p.options && text.startsWith('-') && text !== '-') {
      if (literal.whole && text === '--') {
        p.options = false;
        if (p.program !== undefined) runPackageProgram(state, p.program);
        return false;
      }
      const attached = /^(-[^=]*)=/.exec(text);
      const after = text.slice(attached?.[0].length);
      if (attached !== null && PACKAGE_TEXT_OPTIONS[p.tool]?.has(attached[1]!) && after !== '' && !after.startsWith('-')) return false;
      if (refuse()) return true;
      const requirements = (p.tool === 'pip' || p.tool === 'uv') && literal.whole ? requirementsValue(text) : undefined;
      if (requirements === '') p.requirements = true;
      else if (requirements !== undefined && requirementsFromInput(requirements)) state.input = true;
      // hatch run's matrix exclusions before the program (`-py=3.11`, `-x`) take no value: -e, -i, -x take one in hatch env run.
      if (p.tool === 'hatch' && p.operands === 'command' && p.group === undefined) return false;
      p.value = spec.values?.includes(text)
        ? 'maybe'
        : text.includes('=') || PACKAGE_FLAGS.has(text)
          ? undefined
          : PACKAGE_DATA_OPTIONS[p.tool]?.has(text)
            ? 'data'
            : PACKAGE_TEXT_OPTIONS[p.tool]?.has(text)
              ? 'text'
              : 'maybe';
      return false;
    }
    // A value at the start of a word where options are read could be one.
    if (p.options && ((!literal.whole && text === '') || (replace !== undefined && text.startsWith(replace)))) {
      if (replace !== undefined && text.startsWith(replace)) state.input = true;
      return !literal.whole && this.#refuseWord(REFUSED.packageCode, false);
    }
    if (p.subcommand) {
      p.subcommand = false;
      if (refuse()) return true;
      if (p.tool === 'hatch' && p.group === undefined && text === 'env') {
        // hatch env run …: the subcommand of its env group follows.
        p.subcommand = true;
        p.group = text;
        return false;
      }
      const managed = p.tool === 'corepack' && literal.whole ? packageToolOf(text.replace(/@.*$/, '')) : undefined;
      if (managed !== undefined && managed !== 'corepack') {
        state.packages = newPackages(managed);
        return false;
      }
      p.operands =
        spec.all?.includes(text) || PACKAGE_CONFIG.has(text)
          ? 'all'
          : spec.runs?.includes(text)
            ? 'runs'
            : spec.commands?.includes(text)
              ? 'command'
              : literal.whole && spec.shells?.includes(text)
                ? 'shell'
                : undefined;
      return false;
    }
    if (p.operands === 'command') {
      // The program bundle exec, poetry run, conda run… run: a value would choose it; a fixed one is read as a command name.
      if (refuse()) return true;
      // hatch run's matrix filters before it (`+py=3.12`).
      if (p.tool === 'hatch' && text.startsWith('+')) return false;
      state.packages = undefined;
      state.commandPosition = true;
      // hatch run env:python …: the program after the environment's name (hatch env run takes it with -e).
      if (p.tool === 'hatch' && p.group === undefined) state.prefix = 'hatch run';
      return false;
    }
    // npm explore PKG -- CMD…, pixi run CMD…: the words are joined into one command string a shell runs (npm's script-shell, pixi's task shell).
    if (p.operands === 'shell') return !literal.whole && this.#refuseWord(REFUSED.runsCommand, false);
    // uv pip compile -, uv pip sync -: uv reads a requirements file named `-` from its input.
    if (p.operands === 'all' && p.tool === 'uv' && literal.whole && requirementsFromInput(text)) state.input = true;
    if (p.operands === 'all') return refuse();
    if (p.operands === 'runs' && !p.ran) {
      p.ran = true;
      if (spec.restData) p.rest = true;
      if (refuse()) return true;
      // An interpreter's or shell's package (npx tsx -e …, uvx python@3.12 -c …), no path (go run ./cmd/node): its words are its
      // own — at once for a runner that passes every later word on, and after -- (npm exec -- tsx -e …); before --, npm exec,
      // pnpm dlx… still read options among them (a token there is refused as one), and the words after -- are the program's.
      const name = text.replace(/(?<=.)@.*$/, '');
      if (literal.whole && !name.includes('/') && (isShell(name) || interpreterOf(name) !== undefined)) {
        if (spec.restData || !p.options) runPackageProgram(state, name);
        else p.program = name;
      }
      return false;
    }
    return false;
  }

  /**
   * An argument of an interpreter: refuses it (consuming it, returning true) where the value would
   * run as its program or choose it — the value of an option that gives the program (`-c`, `-e`,
   * `--eval`…), the first operand when it is the script file (or a subcommand), sqlite3's SQL
   * operands, every word after pwsh -Command, a token in any option but those that take data
   * (psql -h, -v name=…), and a word a value could make an option while the interpreter still
   * reads options (`perl -e '…' {{…}}`: perl reads `-e…` there as more code). Notes whether the
   * program is given, so that an interpreter given none reads it from its input (readsScript).
   */
  #interpreterWord(state: CommandState, it: NonNullable<CommandState['interpreter']>): boolean {
    const spec = INTERPRETERS[it.name]!;
    const literal = this.#literal();
    if (it.rest) {
      if (literal.whole && STANDARD_INPUT.test(literal.text)) it.stdin = true;
      return this.#programWord(state);
    }
    if (it.next) {
      const next = it.next;
      it.next = undefined;
      if (next === 'code') {
        if (literal.whole && STANDARD_INPUT.test(literal.text)) it.stdin = true;
        if (it.module && literal.whole && packageToolOf(literal.text) !== undefined) {
          // python3 -m pip install …: pip's operands.
          state.interpreter = undefined;
          state.packages = newPackages(packageToolOf(literal.text)!);
          return false;
        }
        return this.#programWord(state);
      }
      if (next === 'data') return false;
      // psql -v name=value: a value may follow a fixed name and =; before it, it would name the variable.
      return !literal.whole && !(next === 'assignment' && literal.text.includes('=')) && this.#refuseWord(REFUSED.interpreterProgram, false);
    }
    // A value at the start of a word where options are read could be one (`-e…`, `--eval=…`, psql `-c\! …`): refused, as an option or an operand.
    const optionLike = it.options && !literal.whole && (literal.text === '' || literal.text.startsWith('-'));
    if (it.options && literal.text.startsWith('-') && (literal.text !== '-' || !literal.whole)) {
      if (literal.whole && (literal.text === '--' || literal.text === spec.endsOptions)) {
        it.options = false;
        // After R's --args no word is a subcommand either (`R -e '…' --args CMD {{…}}`: data).
        if (literal.text === spec.endsOptions) it.subcommand = false;
        return false;
      }
      return this.#interpreterOption(state, it, spec, literal);
    }
    // julia +1.10: the version juliaup runs.
    if (spec.channels && it.options && it.operands === 0 && literal.whole && literal.text.startsWith('+')) return false;
    if (it.container && it.operands === 0 && literal.whole && (isShell(literal.text) || interpreterOf(literal.text) !== undefined)) {
      // The container bore the interpreter's name (`docker exec python python3 -c …`): the command run starts here.
      state.interpreter = isShell(literal.text) ? undefined : newInterpreter(interpreterOf(literal.text)!);
      if (isShell(literal.text)) state.shell = { arguments: 0 };
      return false;
    }
    if (!spec.permutes) it.options = false;
    if (it.subcommand) {
      it.subcommand = false;
      if (it.name === 'bun' && literal.whole && PACKAGE_TOOLS.bun!.all!.includes(literal.text)) {
        // bun add, bun install…: a package manager's operands.
        state.interpreter = undefined;
        state.packages = { tool: 'bun', subcommand: false, options: true, operands: 'all' };
        return false;
      }
      if (literal.whole && spec.commands?.includes(literal.text)) {
        // R CMD BATCH FILE, R CMD INSTALL PKG, R CMD ANY-PROGRAM: the next word names the command run.
        state.interpreter = undefined;
        state.commandPosition = true;
        state.prefix = `${it.name} ${literal.text}`;
        return false;
      }
      if (literal.whole && spec.subcommands!.includes(literal.text)) {
        // deno eval CODE, bun run FILE: options may come before the program, which the next operand is.
        it.options = true;
        return false;
      }
    }
    it.operands++;
    if (spec.operands === 'command' && !it.given) {
      // powershell's first operand starts the command it runs, every word after it part of it.
      it.given = true;
      it.rest = true;
      return this.#programWord(state);
    }
    if (spec.operands === 'sql' && it.operands > 1) {
      it.given = true;
      return this.#programWord(state);
    }
    if (it.name === 'ruby' && it.script && literal.whole && baseName(literal.text) === 'rails') {
      // ruby bin/rails runner …: rails's words, as after bin/rails.
      state.interpreter = undefined;
      state.commandPosition = true;
      state.prefix = 'rails';
      return false;
    }
    if (it.name === 'ruby' && it.script && literal.whole && baseName(literal.text) === 'spring') {
      // ruby bin/spring rails runner …: the command spring runs, as after bin/spring.
      state.interpreter = undefined;
      state.commandPosition = true;
      return false;
    }
    if (it.name === 'ruby' && it.script && literal.whole && /^(?:rspec|cucumber|rake)$/.test(baseName(literal.text))) {
      // ruby bin/rspec spec/…, ruby bin/rake …: the words after the binstub are its command line, read as after bin/rspec.
      state.interpreter = undefined;
      state.commandOptions = { command: baseName(literal.text) };
      return false;
    }
    if (spec.operands === 'script' && it.script) {
      // The script file (`python3 {{…}}`), or its input (`python3 -`, `perl /dev/stdin`); the words after it are its arguments.
      it.script = false;
      it.given = true;
      if (literal.whole && STANDARD_INPUT.test(literal.text)) it.stdin = true;
      return this.#programWord(state);
    }
    return optionLike && this.#refuseWord(REFUSED.interpreterProgram, false);
  }

  /** An option of an interpreter (`literal` starts with `-`): notes a program it gives and what its value is, refusing a token in it where the value is no data. */
  #interpreterOption(state: CommandState, it: NonNullable<CommandState['interpreter']>, spec: Interpreter, literal: Literal): boolean {
    const text = spec.caseless ? literal.text.toLowerCase() : literal.text;
    // python3 -i, node -i, perl -d (not -d:Module): its input is code too, whatever program it is given.
    const interactive = (option: string, rest: string): void => {
      if (spec.interactive?.includes(option) && !rest.includes(':')) it.stdin = true;
    };
    /** The option `option` takes a value: in this word (`attached`, its fixed start `value`), or the next word. */
    const takes = (option: string, attached: boolean, value: string): boolean => {
      const code = spec.code.includes(option) || (spec.rest?.includes(option) ?? false);
      if (code) {
        it.given = true;
        if (!spec.keepsScript) it.script = false;
        if (spec.ends?.includes(option)) it.options = false;
        if (spec.rest?.includes(option)) it.rest = true;
        if (!attached) {
          it.next = spec.rest?.includes(option) ? undefined : 'code';
          it.module = it.name === 'python' && option === '-m';
          return false;
        }
        if (it.name === 'python' && option === '-m' && literal.whole && packageToolOf(value) !== undefined) {
          // python3 -mpip install …
          state.interpreter = undefined;
          state.packages = newPackages(packageToolOf(value)!);
          return false;
        }
        if (literal.whole && STANDARD_INPUT.test(value)) it.stdin = true;
        return this.#programWord(state);
      }
      const data = spec.data?.[option];
      if (!attached) {
        it.next = data ?? 'option';
        return false;
      }
      return !literal.whole && data !== 'data' && !(data === 'assignment' && value.includes('=')) && this.#refuseWord(REFUSED.interpreterProgram, false);
    };
    const isOption = (option: string): boolean => spec.code.includes(option) || spec.arguments.includes(option) || (spec.rest?.includes(option) ?? false);
    if (text.startsWith('--') || spec.words) {
      // A whole option, or one with its value after = (a token before the = could make another option).
      const [, written = '', equals] = /^(-{1,2}[^=]*)(=?)/.exec(text) ?? [];
      const option = spec.abbreviated === undefined ? written : unabbreviated(spec, spec.abbreviated, written);
      if (literal.whole && equals !== '=') interactive(option, '');
      if (isOption(option) && (equals === '=' || literal.whole)) return takes(option, equals === '=', text.slice(option.length + 1));
      return !literal.whole && this.#refuseWord(REFUSED.interpreterProgram, false);
    }
    // Short options bundled in one word (`-uc`, `-lne`): one that takes a value takes the rest of the word or the next word.
    for (let k = 1; k < text.length; k++) {
      const option = `-${text[k]}`;
      if (isOption(option)) return takes(option, k + 1 < text.length || !literal.whole, text.slice(k + 1));
      const attached = spec.attached?.[text[k]!];
      interactive(option, attached === 'rest' ? text.slice(k + 1) : '');
      if (attached === 'rest') break;
      if (attached === 'digits') while (/[0-9]/.test(text[k + 1] ?? '')) k++;
    }
    return !literal.whole && this.#refuseWord(REFUSED.interpreterProgram, false);
  }

  /** The program of an interpreter, or the file or module of it: refuses a token in it, and notes whether what runs is what the command reads (`xargs -I{} python3 -c '…{}…'`, `python3 -c "$(cat)"`). */
  #programWord(state: CommandState): true {
    const start = this.#i;
    this.#refuseWord(REFUSED.interpreterProgram, false);
    const text = this.#s.slice(start, this.#i);
    const replace = state.xargs?.replace;
    if (replace !== undefined && text.includes(replace)) state.input = true;
    else if (state.input === undefined && SUBSTITUTION.test(text)) state.input = 'substitution';
    return true;
  }

  /**
   * A word of git before its subcommand, or the subcommand: refuses it (consuming it, returning
   * true) where a value would set configuration (-c, --config-env: core.sshCommand, core.pager,
   * alias.x=!… run commands), choose the directory git runs its programs from (--exec-path=), or
   * be read as such an option or as the subcommand. -C, --git-dir and the like take data.
   */
  #gitWord(state: CommandState, git: NonNullable<CommandState['git']>): boolean {
    if (git.next) {
      const next = git.next;
      git.next = undefined;
      return next === 'code' && this.#refuseWord(REFUSED.gitOption, false);
    }
    const literal = this.#literal();
    if (git.config) return this.#gitConfigWord(git, git.config, literal);
    if (git.subcommand) return this.#gitSubcommandWord(git, git.subcommand, literal);
    if (literal.text.startsWith('-') || (literal.text === '' && !literal.whole)) {
      const [, option = '', equals] = /^(-{1,2}[A-Za-z-]*)(=?)/.exec(literal.text) ?? [];
      if (literal.whole) {
        if (equals !== '=') git.next = GIT_CONFIG_OPTIONS.has(option) ? 'code' : GIT_DATA_OPTIONS.has(option) ? 'data' : undefined;
        return false;
      }
      // A token in an option word: in the value after = of an option that takes data (--namespace=…), or refused.
      return !(equals === '=' && GIT_DATA_OPTIONS.has(option)) && this.#refuseWord(REFUSED.gitOption, false);
    }
    // The subcommand: a value there would choose what git runs; git config writes configuration later commands run.
    if (literal.whole && literal.text === 'config') git.config = { reading: false, operands: 0 };
    else if (literal.whole && Object.hasOwn(GIT_SUBCOMMANDS, literal.text)) git.subcommand = { name: literal.text, options: true, operands: 0 };
    else state.git = undefined;
    return !literal.whole && this.#refuseWord(REFUSED.gitOption, false);
  }

  /**
   * An argument of git config: refuses a token in the key or value it writes (any key, as for
   * git -c: core.sshCommand, alias.x=!… run commands in later git commands), unless an option or
   * subcommand makes it read (--get, --list, get, list…); the values of -f, --type and the like are data.
   */
  #gitConfigWord(git: NonNullable<CommandState['git']>, config: NonNullable<NonNullable<CommandState['git']>['config']>, literal: Literal): boolean {
    if (literal.text.startsWith('-') || (literal.text === '' && !literal.whole)) {
      if (!literal.whole) return !config.reading && this.#refuseWord(REFUSED.gitOption, false);
      if (GIT_CONFIG_READING.test(literal.text)) config.reading = true;
      if (GIT_CONFIG_VALUE_OPTIONS.has(literal.text)) git.next = 'data';
      return false;
    }
    config.operands++;
    if (config.operands === 1 && literal.whole && /^(?:get|list|unset|remove-section|rename-section)$/.test(literal.text)) config.reading = true;
    if (config.operands === 1 && literal.whole && /^(?:get|list|unset|remove-section|rename-section|set|edit)$/.test(literal.text)) return false;
    return !config.reading && this.#refuseWord(REFUSED.gitOption, false);
  }

  /**
   * An argument of a git subcommand of GIT_SUBCOMMANDS: refuses it (consuming it, returning true)
   * in the value of an option that runs a command or sets what runs (`clone -c`, `--upload-pack`,
   * `rebase --exec`), in an option word a value could turn into one, at the start of a word
   * before `--` where a value could be one (`git push origin {{…}}`), and in every word of the
   * command `submodule foreach` or `bisect run` runs. The values of `-b`, `--depth` and the like
   * and everything after `--` are data.
   */
  #gitSubcommandWord(git: NonNullable<CommandState['git']>, sub: NonNullable<NonNullable<CommandState['git']>['subcommand']>, literal: Literal): boolean {
    const spec = GIT_SUBCOMMANDS[sub.name]!;
    if (sub.runs) return this.#refuseWord(REFUSED.gitOption, false);
    const text = literal.text;
    if (sub.options && text.startsWith('-') && text !== '-') {
      if (literal.whole && text === '--') {
        sub.options = false;
        return false;
      }
      const long = /^(--[A-Za-z0-9-]+)(=?)/.exec(text);
      if (long !== null) {
        const [, option = '', equals] = long;
        // `--upload-pack={{…}}` is refused, `--branch={{…}}` is data; a token before the = could make another option.
        if (equals === '=') return spec.code.includes(option) && !literal.whole && this.#refuseWord(REFUSED.gitOption, false);
        if (!literal.whole) return this.#refuseWord(REFUSED.gitOption, false);
        if (GIT_ATTACHED_ONLY.has(option)) return false;
        git.next = spec.code.includes(option) ? 'code' : spec.values?.includes(option) ? 'data' : undefined;
        return false;
      }
      // Short options, bundled: one that takes a value takes the rest of the word or, last, the next word.
      for (let k = 1; k < text.length; k++) {
        const option = `-${text[k]}`;
        const code = spec.code.includes(option);
        if (!code && !spec.values?.includes(option)) continue;
        if (k + 1 < text.length || !literal.whole) return code && !literal.whole && this.#refuseWord(REFUSED.gitOption, false);
        if (!GIT_ATTACHED_ONLY.has(option)) git.next = code ? 'code' : 'data';
        return false;
      }
      // Options that take no value, unless an expansion adds more: a token there could add one that runs a command.
      return !literal.whole && this.#refuseWord(REFUSED.gitOption, false);
    }
    if (spec.runs !== undefined && sub.operands === 0 && literal.whole && text === spec.runs) {
      sub.runs = true;
      return false;
    }
    sub.operands++;
    // A value at the start of a word where git still reads options could be one (`--upload-pack=…`).
    return sub.options && spec.code.length > 0 && !literal.whole && text === '' && this.#refuseWord(REFUSED.gitOption, false);
  }

  /** An argument of a builtin of NAMING: refuses it (consuming it, returning true) where it is a variable name. */
  #namingWord(naming: NonNullable<CommandState['naming']>): boolean {
    const spec = NAMING[naming.command]!;
    if (naming.next) {
      const next = naming.next;
      naming.next = undefined;
      return next === 'name' && this.#refuseWord(REFUSED.variableName, false);
    }
    const literal = this.#literal();
    if (naming.options && literal.text.startsWith('-') && literal.text !== '-') {
      if (literal.whole && literal.text === '--') {
        naming.options = false;
        return false;
      }
      // Options bundled in one word; an option that takes a value takes the rest of the word, or the next word.
      for (let k = 1; k < literal.text.length; k++) {
        const value = spec.values[literal.text[k]!];
        if (!value) continue;
        if (k + 1 < literal.text.length || !literal.whole) return value === 'name' && this.#refuseWord(REFUSED.variableName, false);
        naming.next = value;
        return false;
      }
      // Options that take no value, unless an expansion adds more: a token there could add a name option.
      return !literal.whole && this.#refuseWord(REFUSED.variableName, false);
    }
    naming.options = false;
    naming.operands++;
    return spec.operands(naming.operands) && this.#refuseWord(REFUSED.variableName, false);
  }

  /**
   * An argument of awk: refuses it (consuming it, returning true) where it is program text or
   * names a file of it; the values of -v and -F, and operands after the program (files and
   * name=value assignments), are data.
   */
  #awkWord(awk: NonNullable<CommandState['awk']>): boolean {
    if (awk.next) {
      const next = awk.next;
      awk.next = undefined;
      return next === 'code' && this.#refuseWord(REFUSED.awkProgram, false);
    }
    const literal = this.#literal();
    if (awk.options && literal.text.startsWith('-') && literal.text !== '-') {
      if (literal.whole && literal.text === '--') {
        awk.options = false;
        return false;
      }
      const long = /^--([a-z-]+)(=?)/.exec(literal.text);
      const option = long ? long[1]! : literal.text[1];
      const kind = option === undefined ? undefined : AWK_OPTIONS[option];
      if (kind === undefined) return !literal.whole && this.#refuseWord(REFUSED.awkProgram, false);
      if (kind === 'code' && option !== 'i' && option !== 'include' && option !== 'l' && option !== 'load') awk.program = true;
      // The value in the same word (`-F,`, `--file=x`), or the next word.
      if (long ? long[2] === '=' : literal.text.length > 2 || !literal.whole) return kind === 'code' && this.#refuseWord(REFUSED.awkProgram, false);
      awk.next = kind;
      return false;
    }
    awk.options = false;
    if (awk.program) return false;
    awk.program = true;
    return this.#refuseWord(REFUSED.awkProgram, false);
  }

  /**
   * An argument of ssh: refuses it (consuming it, returning true) where the value would run as
   * code — in the remote command (every word after the destination that is no option of ssh's:
   * ssh joins them and the remote user's shell parses them), anywhere in the destination (at its
   * start an option, `-oProxyCommand=…`, runs locally; as the host or user, ssh_config's
   * ProxyCommand and Match exec get it through %h and %r) and in the user -l takes, in what -o,
   * -F, -J or -I take. Notes whether the remote side reads its input as its script: with no
   * command (the remote shell reads it), or a command that is a shell without -c, an
   * interpreter given no program, eval or xargs.
   */
  #sshWord(state: CommandState, ssh: NonNullable<CommandState['ssh']>): boolean {
    if (ssh.next) {
      const next = ssh.next;
      ssh.next = undefined;
      return next === 'code' && this.#refuseWord(REFUSED.remoteCommand, false);
    }
    const literal = this.#literal();
    // ssh reads options before the destination and again after it, up to the first other word or --.
    if (ssh.remote === undefined && ssh.options && literal.text.startsWith('-') && literal.text !== '-') {
      if (literal.whole && literal.text === '--') {
        ssh.options = false;
        return false;
      }
      for (let k = 1; k < literal.text.length; k++) {
        const kind = SSH_OPTIONS[literal.text[k]!];
        if (kind === undefined) continue;
        // The value in the same word (`-p22`, `-oProxyCommand={{…}}`), or the next word.
        if (k + 1 < literal.text.length || !literal.whole) return kind === 'code' && !literal.whole && this.#refuseWord(REFUSED.remoteCommand, false);
        ssh.next = kind;
        return false;
      }
      // Options that take no value, unless an expansion adds more.
      return !literal.whole && this.#refuseWord(REFUSED.remoteCommand, false);
    }
    if (!ssh.destination) {
      // No command yet: the remote shell would read its script from ssh's input.
      ssh.destination = true;
      state.input = true;
      // A token anywhere in it: at its start it could be an option; as the host or user, ssh_config can hand it to a shell (%h, %r).
      return !literal.whole && this.#refuseWord(REFUSED.remoteCommand, false);
    }
    ssh.remote ??= [];
    ssh.remote.push(literal.whole ? literal.text : undefined);
    this.#refuseWord(REFUSED.remoteCommand, false);
    // A word not fixed (`"$cmd"`) could be anything, a shell among them.
    // The remote command's words, with its operators (`;`, `&&`, `|`…) kept as ';' so that a shell's operands end at them.
    const words = ssh.remote.flatMap((word) =>
      word === undefined
        ? [undefined]
        : word
            .split(/(\s+|[;&|()]+)/)
            .map((w) => (/^[;&|()]+$/.test(w) ? ';' : w.trim()))
            .filter((w) => w !== ''),
    );
    const fixed = words.filter((word): word is string => word !== undefined);
    const substitution = ssh.remote.some((word) => word !== undefined && SUBSTITUTION.test(word));
    // A shell reads its input as its script unless -c gives the script (and no substitution in it reads the input) or a
    // script file comes before the command ends; -s or /dev/stdin make it read its input.
    const shellReads = (k: number): boolean => {
      for (let j = k + 1; j < fixed.length && fixed[j] !== ';'; j++) {
        const w = fixed[j]!;
        if (/^[-+][A-Za-z]*$/.test(w)) {
          if (/^-[A-Za-z]*s/.test(w)) return true;
          if (/^-[A-Za-z]*c/.test(w)) return substitution;
          // -o and -O take the next word (`sh -o pipefail -s`).
          j += (w.match(/[oO]/g) ?? []).length;
          continue;
        }
        return STANDARD_INPUT.test(w);
      }
      return true;
    };
    // An interpreter reads its input as its program unless an option gives the program, or a script file (no /dev/stdin) or SQL operand comes.
    const interpreterReads = (k: number): boolean => {
      const spec = INTERPRETERS[interpreterOf(fixed[k]!)!]!;
      let operands = 0;
      for (let j = k + 1; j < fixed.length && fixed[j] !== ';'; j++) {
        const w = fixed[j]!;
        if (w === '--') continue;
        if (w.startsWith('-') && w !== '-') {
          const name = (spec.caseless ? w.toLowerCase() : w).replace(/=.*$/s, '');
          const bundled = (o: string): boolean => !spec.words && o.length === 2 && /^-[A-Za-z0-9]+$/.test(name) && name.includes(o[1]!);
          if (spec.interactive?.some((o) => name === o || bundled(o))) return true;
          if ([...spec.code, ...(spec.rest ?? [])].some((o) => name === o || bundled(o))) return false;
          if (spec.arguments.includes(name)) j++;
          continue;
        }
        operands++;
        if (spec.operands === 'script') return STANDARD_INPUT.test(w);
        if (spec.operands === 'command' || (spec.operands === 'sql' && operands > 1)) return false;
      }
      return true;
    };
    const reads =
      words.includes(undefined) ||
      fixed.some(
        (w, k) =>
          (isShell(w) && shellReads(k)) ||
          (interpreterOf(w) !== undefined && interpreterReads(k)) ||
          w === 'eval' ||
          w === 'xargs' ||
          w === 'parallel' ||
          STANDARD_INPUT.test(w),
      );
    state.input = reads ? true : undefined;
    return true;
  }

  /**
   * An argument of sed: refuses it (consuming it, returning true) where it is script text or
   * names a file of it — GNU sed's e command and s///e flag run commands, w writes files —
   * unless --sandbox came before, which makes sed refuse e, r and w. Other operands are files.
   */
  #sedWord(sed: NonNullable<CommandState['sed']>): boolean {
    if (sed.next) {
      const next = sed.next;
      sed.next = undefined;
      return next === 'code' && this.#refuseWord(REFUSED.sedScript, false);
    }
    const literal = this.#literal();
    if (sed.options && literal.text.startsWith('-') && literal.text !== '-') {
      if (literal.whole && literal.text === '--') {
        sed.options = false;
        return false;
      }
      if (literal.whole && literal.text === '--sandbox') {
        sed.sandbox = true;
        return false;
      }
      const long = /^--([a-z-]+)(=?)/.exec(literal.text);
      if (long) {
        const kind = long[1] === 'expression' || long[1] === 'file' ? 'code' : long[1] === 'line-length' ? 'data' : undefined;
        if (kind === 'code') sed.program = true;
        // The value after = of --line-length or --in-place is data; a token before = could make another option.
        const refused = kind === 'code' ? !(sed.sandbox && long[1] === 'expression') : long[2] !== '=';
        if (long[2] === '=' || !literal.whole) return refused && !literal.whole && this.#refuseWord(REFUSED.sedScript, false);
        sed.next = kind;
        return false;
      }
      // Short options bundled in one word: -e and -f take the rest of it or the next word, -l a number, -i an attached suffix.
      for (let k = 1; k < literal.text.length; k++) {
        const option = literal.text[k]!;
        if (option === 'i') break;
        if (option !== 'e' && option !== 'f' && option !== 'l') continue;
        const kind = option === 'l' ? 'data' : 'code';
        if (kind === 'code') sed.program = true;
        if (k + 1 < literal.text.length || !literal.whole)
          return kind === 'code' && !literal.whole && !(option === 'e' && sed.sandbox) && this.#refuseWord(REFUSED.sedScript, false);
        sed.next = kind === 'code' && option === 'e' && sed.sandbox ? 'data' : kind;
        return false;
      }
      return !literal.whole && this.#refuseWord(REFUSED.sedScript, false);
    }
    sed.options = false;
    if (sed.program) return false;
    sed.program = true;
    return !sed.sandbox && this.#refuseWord(REFUSED.sedScript, false);
  }

  /**
   * An argument of a program of COMMAND_OPTIONS: refuses it (consuming it, returning true) in
   * the value of an option that takes a command (rsync -e, scp -S…), or at the start of an
   * operand before `--`, where a value could be such an option (`-e…`, `-oProxyCommand=…`).
   */
  #commandOptionsWord(options: NonNullable<CommandState['commandOptions']>): boolean {
    if (options.next) {
      const next = options.next;
      options.next = undefined;
      return next === 'code' && this.#refuseWord(REFUSED.runsCommand, false);
    }
    const spec = COMMAND_OPTIONS[options.command]!;
    const kindOf = (option: string): 'code' | 'data' | undefined => (spec.code.includes(option) ? 'code' : spec.data.includes(option) ? 'data' : undefined);
    const literal = this.#literal();
    if (!options.ended && literal.whole && literal.text === '--') {
      options.ended = true;
      return false;
    }
    if (options.ended || !literal.text.startsWith('-') || literal.text === '-') {
      // An operand is a local path only where a / comes before any : (`./{{…}}`, `/srv/{{…}}`); otherwise the value can make
      // it remote (`host:…`), and rsync before 3.2.4 and scp -O (the default before OpenSSH 9.0) give a remote path to the
      // remote shell, which runs a $(…) in it; before --, a value at its start could be an option (`-e…`).
      return !literal.whole && !/^[^:]*\//.test(literal.text) && this.#refuseWord(REFUSED.runsCommand, false);
    }
    const long = /^(--[a-z-]+)(=?)/.exec(literal.text);
    if (long) {
      const kind = kindOf(long[1]!);
      // The value after = (`--exclude={{…}}`) is the option's; a token before it could make another option.
      if (long[2] === '=' || !literal.whole) return (kind === 'code' || long[2] !== '=') && !literal.whole && this.#refuseWord(REFUSED.runsCommand, false);
      options.next = kind;
      return false;
    }
    for (let k = 1; k < literal.text.length; k++) {
      const kind = kindOf(`-${literal.text[k]}`);
      if (kind === undefined) continue;
      if (k + 1 < literal.text.length || !literal.whole) return kind === 'code' && !literal.whole && this.#refuseWord(REFUSED.runsCommand, false);
      options.next = kind;
      return false;
    }
    return !literal.whole && this.#refuseWord(REFUSED.runsCommand, false);
  }

  /**
   * A word of make's command line: refuses a token in a variable assignment (make expands `$(shell …)` in its value, and
   * exports it expanded to the recipes), in what --eval, -f or -I take, in an option, and at the start of a word, where a
   * value could make either (`--eval=…`, `REF=…`); targets and -C's directory are data.
   */
  #makeWord(state: CommandState, options: NonNullable<CommandState['commandOptions']>): boolean {
    const literal = this.#literal();
    const text = literal.text;
    const refuse = (): boolean => this.#refuseWordOrReplaced(state, literal, REFUSED.makeCode);
    const replace = state.xargs?.replace;
    const option = this.#tableOption(options, MAKE_OPTIONS, literal, refuse);
    if (option !== undefined) return option;
    return (text === '' || text.includes('=') || (replace !== undefined && text.startsWith(replace))) && refuse();
  }

  /**
   * A word of the command line of make, rake, rails, rspec, cucumber or tar that is an option or an option's value (undefined
   * for an operand, which the caller reads): `table` says which options take the next word (also last in a bundle of short
   * ones, or after `=` of a long one, which may be abbreviated), and of what kind: `data`, or `code`, `file` or `directory`,
   * given to `refuse` with the value's fixed text, which decides. A token in an option's name is refused as `code`;
   * `--` ends the options.
   */
  #tableOption(
    options: NonNullable<CommandState['commandOptions']>,
    table: Readonly<Record<string, 'code' | 'data' | 'file' | 'directory'>>,
    literal: Literal,
    refuse: (kind: 'code' | 'file' | 'directory', value: string) => boolean,
  ): boolean | undefined {
    const text = literal.text;
    if (options.next) {
      const next = options.next;
      options.next = undefined;
      return next !== 'data' && refuse(next, text);
    }
    if (!options.ended && literal.whole && text === '--') {
      options.ended = true;
      return false;
    }
    if (options.ended || !text.startsWith('-') || text === '-') return undefined;
    const long = /^(--[a-z-]+)(=?)/.exec(text);
    if (long) {
      // getopt_long and Ruby's OptionParser take a long option's unambiguous start for it (`--ev=` is --eval): a
      // start some option of the table has is read as the most dangerous of those it could be.
      const starting = Object.keys(table).filter((name) => name.startsWith('--') && name.startsWith(long[1]!));
      const riskiest = starting.find((name) => table[name] === 'code') ?? starting.find((name) => table[name] !== 'data') ?? starting[0];
      const kind = table[long[1]!] ?? (riskiest === undefined ? undefined : table[riskiest]);
      if (long[2] === '=') return kind !== undefined && kind !== 'data' && refuse(kind, text.slice(long[0].length));
      if (!literal.whole) return refuse('code', text);
      options.next = kind;
      return false;
    }
    for (let k = 1; k < text.length; k++) {
      const kind = table[`-${text[k]}`];
      if (kind === undefined) continue;
      // The value in the same word (`-C/srv/{{…}}`, `-f{{…}}`).
      if (k + 1 < text.length || !literal.whole) return kind !== 'data' && refuse(kind, text.slice(k + 1));
      options.next = kind;
      return false;
    }
    return refuse('code', text);
  }

  /**
   * A word of rake's command line: refuses a token in what -e, -f, -r… take, in an option, in a
   * task's name or arguments and at the start of a word, where a value could make an option
   * (`--execute=…`), a task (`db:drop`) or a setting; the value of a setting of a fixed name
   * (`REF={{…}}`, not RUBYOPT=… or RAKEOPT=…) is data (the first `NAME=` takes the whole word).
   */
  #rakeWord(state: CommandState, options: NonNullable<CommandState['commandOptions']>): boolean {
    const literal = this.#literal();
    const text = literal.text;
    const refuse = (): boolean => this.#refuseWordOrReplaced(state, literal, REFUSED.rakeCode);
    const option = this.#tableOption(options, RAKE_OPTIONS, literal, refuse);
    if (option !== undefined) return option;
    const setting = /^([A-Za-z_]\w*)=/.exec(text);
    if (setting) {
      // RAKEOPT: the options a rake its tasks start reads (-e code among them).
      const refusal = setting[1] === 'RAKEOPT' ? REFUSED.rakeCode : assignedRefusal(setting[1]!);
      return refusal !== undefined && !literal.whole && this.#refuseWord(refusal, false);
    }
    // A task's name, or its arguments (`deploy[{{…}}]`): rake reads each line of a word that is no setting as one
    // (`^NAME=` matches at a line's start), so a value `x\nGIT_SSH_COMMAND=…` there sets that variable for the tasks.
    return refuse();
  }

  /**
   * A word of one of rails's own commands that load the application (rails server, test, routes…): refuses a token in
   * what -e/--environment, -c, -u and -P take, in an option, and at the start of an operand, where a value could be one
   * (`rails server {{…}}`: `-e../../tmp/x`), and in a test file rails test loads (Ruby: `rails test test/{{…}}`, a value
   * `../../tmp/x.rb`), unless after a fixed `file:` (`rails test test/x_test.rb:{{…}}`, the line run).
   */
  #railsWord(state: CommandState, options: NonNullable<CommandState['commandOptions']>): boolean {
    const literal = this.#literal();
    const refuse = (): boolean => this.#refuseWordOrReplaced(state, literal, REFUSED.railsOption);
    const option = this.#tableOption(options, RAILS_OPTIONS, literal, refuse);
    if (option !== undefined) return option;
    if (options.command === 'rails test') return !literal.whole && !literal.text.includes(':') && refuse();
    return !options.ended && literal.text === '' && refuse();
  }

  /**
   * A word of mvn's or gradle's command line: refuses a token in what an option of BUILD_TOOL_OPTIONS that names the build
   * read takes (`mvn -f {{…}}`, `gradle -p /srv/{{…}}`, `--build-file={{…}}`), in an option's name (`--{{…}}`), in a
   * system property's name (`-D{{…}}`, `-D {{…}}`, `--define={{…}}`) or in the value of one of BUILD_CODE_PROPERTY
   * (`-Dexec.executable={{…}}`), and at the start of a word, where a value could be an option (`mvn {{…}}`: `-f…`, or a goal
   * naming a plugin to fetch and run); the value of a property of a fixed name (`-Dref={{…}}`, `-Pref={{…}}`), of a data
   * option and a goal or task after fixed text are data.
   */
  #buildToolWord(state: CommandState, options: NonNullable<CommandState['commandOptions']>): boolean {
    const table = BUILD_TOOL_OPTIONS[options.command as 'mvn' | 'gradle'];
    const literal = this.#literal();
    const text = literal.text;
    const refuse = (): boolean => this.#refuseWordOrReplaced(state, literal, REFUSED.buildCode);
    // A system property `name=value`: a token in its name, or in the value of a property naming a program or where code is loaded from.
    const property = (assignment: string): boolean => {
      const equals = assignment.indexOf('=');
      return (equals <= 0 || BUILD_CODE_PROPERTY.test(assignment.slice(0, equals))) && refuse();
    };
    if (options.property) {
      options.property = undefined;
      return property(text);
    }
    if (options.next) {
      const next = options.next;
      options.next = undefined;
      return next === 'code' && refuse();
    }
    if (!text.startsWith('-') || text === '-') return this.#valueStarts(state, literal) && refuse();
    if (literal.whole) {
      // Both read a long option's name after a single dash too (`mvn -settings …`, `gradle -project-dir …`).
      const kind = text.includes('=') ? undefined : (table[text] ?? (text.startsWith('--') ? undefined : table[`-${text}`]));
      if (kind === 'property') options.property = true;
      else options.next = kind;
      return false;
    }
    if (text.startsWith('-D')) return property(text.slice(2));
    // A property of a fixed name (`-Pref=…`), or a data option's value after `=` (`--console=…`).
    const equals = text.indexOf('=');
    const option = equals > 0 ? table[text.slice(0, equals)] : undefined;
    if (option === 'property') return property(text.slice(equals + 1));
    if (equals > 0 && (/^-P[^=]/.test(text) || option === 'data')) return false;
    return refuse();
  }

  /**
   * A word of rspec's command line (also spring rspec, bundle exec rspec), or cucumber's (CUCUMBER_OPTIONS, its feature files
   * as spec files): refuses a token in what -r, -I, -O, -P, -f… take,
   * in an option, at the start of a word, where a value could be one (`--require=…`), and in a spec file or directory it
   * loads (Ruby: `rspec spec/{{…}}`, a value `../../tmp/x_spec.rb`), unless after a fixed `file:` or `file[` (the line or
   * example run: `rspec spec/x_spec.rb:{{…}}`).
   */
  #rspecWord(state: CommandState, options: NonNullable<CommandState['commandOptions']>): boolean {
    const literal = this.#literal();
    const refuse = (): boolean => this.#refuseWordOrReplaced(state, literal, REFUSED.rspecCode);
    const option = this.#tableOption(options, options.command === 'cucumber' ? CUCUMBER_OPTIONS : RSPEC_OPTIONS, literal, refuse);
    if (option !== undefined) return option;
    // The fixed text before the value (a token, or xargs -I's string: `… | xargs -I{} rspec spec/{}`).
    const replace = state.xargs?.replace;
    const before = !literal.whole
      ? literal.text
      : replace !== undefined && literal.text.includes(replace)
        ? literal.text.slice(0, literal.text.indexOf(replace))
        : undefined;
    return before !== undefined && !/[:[]/.test(before) && refuse();
  }

  /**
   * A word of tar's command line: refuses a token in what a `code` option of TAR_OPTIONS takes (`--to-command={{…}}`), in the
   * directory -C takes, in the archive -f names unless it is a local path (a / before any :, after fixed text:
   * `-f /backups/{{…}}.tgz`), in an option, and at the start of a word before `--`, where a value could be an option
   * (`tar -xf ./a.tar {{…}}`: `--to-command=…`). A first word without a dash is a bundle of options (`tar xzf …`).
   */
  #tarWord(state: CommandState, options: NonNullable<CommandState['commandOptions']>): boolean {
    let literal = this.#literal();
    if (!options.started) {
      options.started = true;
      if (literal.whole && /^[A-Za-z]+$/.test(literal.text)) literal = { text: `-${literal.text}`, whole: true };
    }
    const word = literal;
    const refuse = (kind: 'code' | 'file' | 'directory', value: string): boolean =>
      !(kind === 'file' && /^[^:]*\//.test(value)) && this.#refuseWordOrReplaced(state, word, kind === 'directory' ? REFUSED.directory : REFUSED.tarOption);
    const option = this.#tableOption(options, TAR_OPTIONS, literal, refuse);
    if (option !== undefined) return option;
    return !options.ended && this.#valueStarts(state, literal) && refuse('code', '');
  }

  /** Whether calling the function `name` runs a shell reading its input: its body runs one, or calls a function that does. */
  #callsScript(name: string, seen: Set<string>): boolean {
    if (this.#scriptFunctions.has(name)) return true;
    if (seen.has(name)) return false;
    seen.add(name);
    return [...(this.#functionCalls.get(name) ?? [])].some((called) => this.#callsScript(called, seen));
  }

  /** Notes, for the code or file word `text` of a shell or of eval/source, whether the command reads its input as code: it names the input as a file, or (when `code`) a substitution in it may read the input. */
  #readsInput(state: CommandState, literal: Literal, text: string, code: boolean): void {
    if (literal.whole && STANDARD_INPUT.test(literal.text)) state.input = true;
    else if (code && state.input === undefined && SUBSTITUTION.test(text)) state.input = 'substitution';
  }

  /**
   * Refuses the current word for `reason` where it holds a token (#refuseWord); under xargs -I R, a
   * word holding R stands for what xargs reads (`… | xargs -I{} npm i {}`), so the command's input
   * is refused as well. False for a word without a token.
   */
  #refuseWordOrReplaced(state: CommandState, literal: Literal, reason: string): boolean {
    const replace = state.xargs?.replace;
    if (replace !== undefined && literal.text.includes(replace)) state.input = true;
    return !literal.whole && this.#refuseWord(reason, false);
  }

  /** Whether a value starts the word: a token, or the string xargs -I puts what it reads in (`… | xargs -I{} tar -xf a.tar {}`). */
  #valueStarts(state: CommandState, literal: Literal): boolean {
    const replace = state.xargs?.replace;
    return (literal.text === '' && !literal.whole) || (replace !== undefined && literal.text.startsWith(replace));
  }

  /** Refuses every token of the word at the scanner's position, for `reason`, and consumes the word. */
  #refuseWord(reason: string, compound: boolean): true {
    this.#evaluated(reason, () => this.#wordToEnd(compound));
    return true;
  }

  /** The fixed text at the start of the word at the scanner's position, as the shell reads it once its quotes are removed. */
  #literal(): Literal {
    const s = this.#s;
    let text = '';
    for (let j = this.#i; ; ) {
      const c = s[j];
      if (isWordEnd(c) || (c === '`' && this.#backticks > 0)) return { text, whole: true };
      if (this.#tokens.has(j) || c === '$' || c === '`') return { text, whole: false };
      if (c === '\\') {
        if (s[j + 1] !== '\n') text += s[j + 1] ?? '';
        j += 2;
      } else if (c === "'") {
        let k = j + 1;
        for (; k < this.#end && s[k] !== c; k++) if (this.#tokens.has(k)) return { text: text + s.slice(j + 1, k), whole: false };
        text += s.slice(j + 1, k);
        j = k + 1;
      } else if (c === '"') {
        // Inside "…" a backslash escapes $, `, ", \ and a newline (taken away) and is kept before any other character: a -c
        // string "eval \$1" is the fixed text eval $1, read as the -c string it is.
        let k = j + 1;
        for (; k < this.#end && s[k] !== c; k++) {
          if (this.#tokens.has(k) || s[k] === '$' || s[k] === '`') return { text, whole: false };
          if (s[k] === '\\' && this.#tokens.has(k + 1)) return { text, whole: false };
          if (s[k] === '\\' && /[$`"\\\n]/.test(s[k + 1] ?? '')) {
            if (s[k + 1] !== '\n') text += s[k + 1];
            k++;
          } else text += s[k];
        }
        j = k + 1;
      } else {
        text += c;
        j++;
      }
    }
  }

  /**
   * The rest of a word of command text, up to its end: quotes, expansions and (after `=`, when
   * `compound`) a parenthesised array value are part of it.
   */
  #wordToEnd(compound: boolean): void {
    const s = this.#s;
    while (this.#i < this.#end) {
      const c = s[this.#i];
      if (this.#tokens.has(this.#i)) this.#place(this.#i, 'unquoted');
      else if (compound && c === '(' && s[this.#i - 1] === '=') {
        this.#i++;
        this.#command(')');
      } else if (isWordEnd(c) || (c === '`' && this.#backticks > 0)) return;
      else if (c === "'") this.#single();
      else if (c === '"') this.#double();
      else if (c === '\\') {
        // A line continuation joins the next line to the word.
        if (s[this.#i + 1] === '\n') this.#i += 2;
        else this.#backslash();
      } else if (c === '$') this.#dollar('unquoted');
      else if (c === '`') {
        this.#i++;
        this.#command('`');
      } else this.#i++;
    }
  }

  #comment(inBackticks: boolean): void {
    const s = this.#s;
    while (this.#i < this.#end && s[this.#i] !== '\n' && !(inBackticks && s[this.#i] === '`')) {
      if (this.#tokens.has(this.#i)) this.#place(this.#i, { refused: REFUSED.comment });
      else this.#i++;
    }
  }

  /** After an opening `'`: nothing is special but the closing quote. */
  #single(): void {
    this.#i++;
    while (this.#i < this.#end) {
      if (this.#tokens.has(this.#i)) this.#place(this.#i, 'single');
      else if (this.#s[this.#i++] === "'") return;
    }
  }

  /** After an opening `$'`: escapes the value could not pass through. */
  #dollarSingle(): void {
    this.#i += 2;
    while (this.#i < this.#end) {
      const c = this.#s[this.#i];
      if (this.#tokens.has(this.#i)) this.#place(this.#i, { refused: REFUSED.dollarSingle });
      else if (c === '\\') this.#i += 2;
      else {
        this.#i++;
        if (c === "'") return;
      }
    }
  }

  /** After an opening `"`. */
  #double(): void {
    this.#i++;
    this.#expanding('double', '"');
  }

  /**
   * Text where `$…`, backticks and backslashes keep their meaning but quotes do not start
   * words: inside "…" (up to `"`), a here-document body (to the end), a `${…}` word inside
   * "…" (up to `}`).
   */
  #expanding(context: 'double' | 'heredoc', closer: '"' | '}' | ''): void {
    const s = this.#s;
    while (this.#i < this.#end) {
      const c = s[this.#i];
      if (this.#tokens.has(this.#i)) this.#place(this.#i, context);
      else if (c === closer) {
        this.#i++;
        return;
      } else if (c === '\\') this.#backslash();
      else if (c === '$') this.#dollar(context);
      else if (c === '`') {
        this.#i++;
        this.#command('`');
      } else if (c === '"' && closer === '}') this.#double();
      else this.#i++;
    }
  }

  /** At a `$`, in command text (`unquoted`), inside "…" or in a here-document body. */
  #dollar(context: TokenContext): void {
    const s = this.#s;
    const i = this.#i;
    if (this.#tokens.has(i + 1)) {
      this.#place(i + 1, { refused: REFUSED.dollar });
      return;
    }
    if (s.startsWith('$((', i)) {
      this.#i += 3;
      this.#evaluated(REFUSED.arithmetic, () => this.#arithmetic('))'));
    } else if (s.startsWith('$(', i)) {
      this.#i += 2;
      this.#command(')');
    } else if (s.startsWith('${', i) && /[ \t\n|]/.test(s[i + 2] ?? '')) {
      // `${ …; }` and `${| …; }` are no parameter: bash 5.3, ksh93 and mksh run their text as
      // commands in the current shell (dash refuses them), so it is read as `$(…)` is.
      this.#i += s[i + 2] === '|' ? 3 : 2;
      this.#command('}');
    } else if (s.startsWith('${', i)) {
      this.#i += 2;
      this.#parameter(context);
    } else if (s.startsWith('$[', i)) {
      this.#i += 2;
      this.#evaluated(REFUSED.arithmetic, () => this.#arithmetic(']'));
    } else if (context === 'unquoted' && s[i + 1] === "'") this.#dollarSingle();
    else if (context === 'unquoted' && s[i + 1] === '"') {
      this.#i++;
      this.#double();
    } else this.#i++;
  }

  /**
   * Arithmetic (after `$((`, `((`, `$[`) or a subscript (after `[`), up to its closer at nesting
   * depth 0 — only the full closer ends it, so an unbalanced parenthesis keeps it open.
   */
  #arithmetic(closer: '))' | ']'): void {
    const s = this.#s;
    let depth = 0;
    while (this.#i < this.#end) {
      const c = s[this.#i];
      if (this.#tokens.has(this.#i)) this.#place(this.#i, 'unquoted');
      else if (depth === 0 && s.startsWith(closer, this.#i)) {
        this.#i += closer.length;
        return;
      } else if (c === '(' || c === '[') {
        depth++;
        this.#i++;
      } else if (c === ')' || c === ']') {
        if (depth > 0) depth--;
        this.#i++;
      } else if (c === "'") this.#single();
      else if (c === '"') this.#double();
      else if (c === '\\') this.#backslash();
      else if (c === '$') this.#dollar('unquoted');
      else if (c === '`') {
        this.#i++;
        this.#command('`');
      } else this.#i++;
    }
  }

  /** After `${`: the name, an optional subscript, the operator, and the word up to `}`. */
  #parameter(context: TokenContext): void {
    const s = this.#s;
    const name = /^[#!]?(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!0-])?/.exec(s.slice(this.#i, this.#i + 256))![0];
    this.#i += name.length;
    if (this.#tokens.has(this.#i)) this.#place(this.#i, { refused: REFUSED.name });
    if (s[this.#i] === '[') {
      this.#i++;
      this.#evaluated(REFUSED.subscript, () => this.#arithmetic(']'));
    }
    if (s[this.#i] === '}') {
      this.#i++;
      return;
    }
    if (s[this.#i] === ':' && !'-=?+'.includes(s[this.#i + 1] ?? '')) {
      this.#i++;
      this.#evaluated(REFUSED.substring, () => this.#word(context));
      return;
    }
    this.#i += /^(?::[-=?+]|##?|%%?|\/[/#%]?|\^\^?|,,?|[-=?+@])?/.exec(s.slice(this.#i, this.#i + 2))![0].length;
    this.#word(context);
  }

  /** The word of a `${…}` expansion, up to its `}`, quoted as the expansion itself is. */
  #word(context: TokenContext): void {
    if (context !== 'unquoted') {
      this.#expanding(context === 'heredoc' ? 'heredoc' : 'double', '}');
      return;
    }
    const s = this.#s;
    while (this.#i < this.#end) {
      const c = s[this.#i];
      if (this.#tokens.has(this.#i)) this.#place(this.#i, 'unquoted');
      else if (c === '}') {
        this.#i++;
        return;
      } else if (c === "'") this.#single();
      else if (c === '"') this.#double();
      else if (c === '\\') this.#backslash();
      else if (c === '$') this.#dollar('unquoted');
      else if (c === '`') {
        this.#i++;
        this.#command('`');
      } else this.#i++;
    }
  }

  /** After `<<`: `-`, blanks, and the delimiter word, quoted or not; the body follows the next newline. */
  #heredocOperator(script: boolean): void {
    const s = this.#s;
    const stripTabs = s[this.#i] === '-';
    if (stripTabs) this.#i++;
    while (s[this.#i] === ' ' || s[this.#i] === '\t') this.#i++;
    let delimiter = '';
    let quoted = false;
    while (this.#i < this.#end && !isWordEnd(s[this.#i])) {
      const c = s[this.#i];
      if (this.#tokens.has(this.#i)) {
        this.#place(this.#i, { refused: REFUSED.delimiter });
        quoted = true;
      } else if (c === "'" || c === '"') {
        const close = s.indexOf(c, this.#i + 1);
        const stop = close < 0 ? this.#end : close;
        delimiter += s.slice(this.#i + 1, stop).replace(c === '"' ? /\\([$`"\\])/g : /(?!)/g, '$1');
        quoted = true;
        this.#i = stop + 1;
      } else if (c === '\\') {
        delimiter += s[this.#i + 1] ?? '';
        quoted = true;
        this.#i += 2;
      } else {
        delimiter += c;
        this.#i++;
      }
    }
    this.#pending.push({ delimiter, stripTabs, quoted, script });
  }

  /** After a newline of command text: the bodies of the here-documents opened on its line. */
  #heredocs(): Array<[number, number]> {
    const bodies: Array<[number, number]> = [];
    const pending = this.#pending;
    this.#pending = [];
    const s = this.#s;
    for (const heredoc of pending) {
      // The shell finds the body line by line first: the first line equal to the delimiter ends it.
      const start = this.#i;
      let bodyEnd = this.#end;
      let next = this.#end;
      for (let line = start; line < this.#end; ) {
        const newline = s.indexOf('\n', line);
        const lineEnd = newline < 0 || newline > this.#end ? this.#end : newline;
        const text = s.slice(line, lineEnd);
        if ((heredoc.stripTabs ? text.replace(/^\t+/, '') : text) === heredoc.delimiter) {
          bodyEnd = line;
          next = Math.min(lineEnd + 1, this.#end);
          break;
        }
        line = lineEnd + 1;
      }
      const outerEnd = this.#end;
      this.#end = bodyEnd;
      const from = this.#places.length;
      if (heredoc.quoted) {
        for (; this.#i < bodyEnd; ) {
          if (this.#tokens.has(this.#i)) this.#place(this.#i, { refused: REFUSED.quotedHeredoc });
          else this.#i++;
        }
      } else if (heredoc.script) this.#evaluated(REFUSED.shellInput, () => this.#expanding('heredoc', ''));
      else this.#expanding('heredoc', '');
      bodies.push([from, this.#places.length]);
      this.#end = outerEnd;
      this.#i = next;
    }
    return bodies;
  }
}
