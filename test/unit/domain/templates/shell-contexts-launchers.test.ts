import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { findTokenPlaces, REFUSED } from '../../../../src/domain/templates/shell-contexts.js';

/** The place of every token of a template: its context, or `refused: <reason>`. */
const places = (template: string): string[] => findTokenPlaces(template).map((t) => ('context' in t.place ? t.place.context : `refused: ${t.place.refused}`));

/**
 * Programs that launch another program the template does not name directly: a container's entry
 * point, interpreters under versioned or variant names, and package managers whose operands name
 * a package they install or run (its install scripts, setup.py or bin run).
 */
describe('findTokenPlaces: launchers', () => {
  const refused: Array<[string, string, string]> = [
    // The entry point receives the container's arguments: sh -c, python3 -c after the image.
    ['after a shell entry point, as its -c string', 'docker run --entrypoint sh img -c {{body.v}}', REFUSED.shellScript],
    [
      'after a shell entry point given by path, with docker options between',
      'docker run --rm --entrypoint /bin/bash -v /srv:/srv -w /srv -e A=1 registry.example.com/app:1 -c {{body.v}}',
      REFUSED.shellScript,
    ],
    ['after a shell entry point, as the script file', 'docker run --entrypoint sh img {{body.v}}', REFUSED.shellScript],
    ['after an interpreter entry point given with =, as its -c program', 'docker run --entrypoint=python3 img -c {{body.v}}', REFUSED.interpreterProgram],
    ['after an interpreter entry point, as its script file', 'podman run --entrypoint python3 -e X=1 img {{body.v}}', REFUSED.interpreterProgram],
    ['after a podman entry point, bundled short options', 'podman run -it --entrypoint node -u 1000 img -e {{body.v}}', REFUSED.interpreterProgram],
    ['after a docker create entry point', 'docker create --name job --entrypoint sh img -c {{body.v}}', REFUSED.shellScript],
    ['after a docker compose run entry point', 'docker compose run --rm --entrypoint sh web -c {{body.v}}', REFUSED.shellScript],
    ['in the entry point itself', 'docker run --entrypoint {{body.v}} img', REFUSED.commandName],
    // An entry point that is a wrapper, env, git, make…: the container's arguments are its (they were accepted).
    ['after a wrapper entry point, as the command it runs', 'docker run --rm --entrypoint timeout img 5 {{body.v}}', REFUSED.runsCommand],
    ['after a git entry point, in its -c value', 'docker run --rm --entrypoint git img -c {{body.v}} status', REFUSED.runsCommand],
    ['after an env entry point of docker compose run', 'docker compose run --rm --entrypoint /usr/bin/env web {{body.v}}', REFUSED.runsCommand],
    ['in the entry point given with =', 'docker run --entrypoint={{body.v}} img', REFUSED.commandName],
    ['after a podman entry point given as a JSON array', `podman run --entrypoint '["sh","-c"]' img {{body.v}}`, REFUSED.entrypoint],
    [
      'after an option the check does not know, where the image could be either word',
      'docker run --entrypoint sh --frobnicate x img -c {{body.v}}',
      REFUSED.entrypoint,
    ],
    ['at the start of the image word after an entry point (a value could be an option)', 'docker run --entrypoint sh {{body.v}} ./x.sh', REFUSED.entrypoint],
    ['in a docker option after an entry point', 'docker run --entrypoint sh --{{body.v}} img ./x.sh', REFUSED.entrypoint],
    [
      'in a here-document given to an interpreter entry point given no program',
      'docker run -i --entrypoint python3 img <<EOF\nprint("{{body.v}}")\nEOF',
      REFUSED.shellInput,
    ],
    // Interpreters under versioned or variant names.
    ['in node20 -e', 'node20 -e {{body.v}}', REFUSED.interpreterProgram],
    ['in node-20 -e', 'node-20 -e {{body.v}}', REFUSED.interpreterProgram],
    ['in python3-dbg -c', 'python3-dbg -c {{body.v}}', REFUSED.interpreterProgram],
    ['in python3.12-dbg -c', 'python3.12-dbg -c {{body.v}}', REFUSED.interpreterProgram],
    ['in python3.12 -c', 'python3.12 -c {{body.v}}', REFUSED.interpreterProgram],
    ['in perl5.36-x86_64-linux-gnu -e', 'perl5.36-x86_64-linux-gnu -e {{body.v}}', REFUSED.interpreterProgram],
    ['in ipython -c', 'ipython -c {{body.v}}', REFUSED.interpreterProgram],
    ['in ipython3 script operand', 'ipython3 {{body.v}}', REFUSED.interpreterProgram],
    ['in a here-document given to ipython3 given no program', 'ipython3 <<EOF\n{{body.v}}\nEOF', REFUSED.shellInput],
    ['in pgcli -c', 'pgcli "$DATABASE_URL" -c {{body.v}}', REFUSED.interpreterProgram],
    ['in mycli -e', 'mycli -u app -e {{body.v}} app', REFUSED.interpreterProgram],
    // Free-threaded CPython builds (python.org, deadsnakes, Debian's python3.13-nogil) install python3.13t, debug python3.13td.
    ['in python3.13t -c', 'python3.13t -c {{body.v}}', REFUSED.interpreterProgram],
    ['in /usr/bin/python3.13td -c', '/usr/bin/python3.13td -c {{body.v}}', REFUSED.interpreterProgram],
    ['in python3.14t-dbg -c', 'python3.14t-dbg -c {{body.v}}', REFUSED.interpreterProgram],
    // tsx and ts-node run node with a TypeScript loader and take node's -e, -p and script file.
    ['in tsx -e', 'tsx -e {{body.v}}', REFUSED.interpreterProgram],
    ['in ts-node --eval', 'ts-node --eval {{body.v}}', REFUSED.interpreterProgram],
    ['as the script tsx runs', 'tsx {{body.v}}', REFUSED.interpreterProgram],
    ['in php8.2 -r', 'php8.2 -r {{body.v}}', REFUSED.interpreterProgram],
    ['in ruby3.1 -e', 'ruby3.1 -e {{body.v}}', REFUSED.interpreterProgram],
    ['in perl5.36.0 -e', 'perl5.36.0 -e {{body.v}}', REFUSED.interpreterProgram],
    ['in lua5.4 -e', 'lua5.4 -e {{body.v}}', REFUSED.interpreterProgram],
    ['in luajit-2.1 -e', 'luajit-2.1 -e {{body.v}}', REFUSED.interpreterProgram],
    ['in /usr/lib/postgresql/15/bin/psql -c', '/usr/lib/postgresql/15/bin/psql -c {{body.v}}', REFUSED.interpreterProgram],
    // R runs what -e and -f/--file give, and reads its program from its input without them; R CMD BATCH runs its file operand.
    ['in R -e', 'R -e {{body.v}}', REFUSED.interpreterProgram],
    ['in R --vanilla -e', 'R --vanilla -e {{body.v}}', REFUSED.interpreterProgram],
    ['in the file R -f runs', 'R --no-save -f {{body.v}}', REFUSED.interpreterProgram],
    ['in the file R --file= runs', 'R --file={{body.v}}', REFUSED.interpreterProgram],
    ['at the start of an R word, where R reads options (a value -e… or --file=…)', 'R --no-save {{body.v}}', REFUSED.interpreterProgram],
    ['in a here-document R reads as its program', 'R --vanilla --quiet <<EOF\nprint("{{body.v}}")\nEOF', REFUSED.shellInput],
    ['as the file R CMD BATCH runs', 'R CMD BATCH --no-timing {{body.v}} out.log', REFUSED.interpreterProgram],
    ['as the command R CMD runs', 'R CMD {{body.v}} x', REFUSED.commandName],
    ['as the package R CMD INSTALL builds', 'R CMD INSTALL --library=/srv/lib {{body.v}}', REFUSED.packageCode],
    // R CMD SHLIB, COMPILE, LINK and javareconf run make, compilers and configure tests on what they are given; Sweave runs a file's R code.
    ['as a file R CMD SHLIB compiles (it was accepted)', 'R CMD SHLIB -o x.so src/{{body.v}}.c', REFUSED.runsCommand],
    ['in an argument of R CMD javareconf (it was accepted)', 'R CMD javareconf {{body.v}}', REFUSED.runsCommand],
    ['as the Java R CMD javareconf runs', 'R CMD javareconf JAVA={{body.v}}', REFUSED.runsCommand],
    ['as a file R CMD COMPILE compiles', 'R CMD COMPILE {{body.v}}', REFUSED.runsCommand],
    ['in the link command R CMD LINK runs', 'R CMD LINK {{body.v}} -o x.so x.o', REFUSED.runsCommand],
    ['as the file whose R code R CMD Sweave runs', 'R CMD Sweave ./reports/{{body.v}}.Rnw', REFUSED.interpreterProgram],
    ['as the Rd file R CMD Rd2pdf renders (\\Sexpr runs R code)', 'R CMD Rd2pdf {{body.v}}', REFUSED.interpreterProgram],
    // julia runs what -e/--eval, -E/--print give, its script operand, and its input without them.
    ['in julia -e', 'julia -e {{body.v}}', REFUSED.interpreterProgram],
    ['in julia -E', 'julia --startup-file=no -E {{body.v}}', REFUSED.interpreterProgram],
    ['in julia --eval=', 'julia --eval="println({{body.v}})"', REFUSED.interpreterProgram],
    ['in julia --print', 'julia --print {{body.v}}', REFUSED.interpreterProgram],
    ['as the script julia runs', 'julia -t 4 {{body.v}}', REFUSED.interpreterProgram],
    ['as the script julia runs after a juliaup channel', 'julia +1.10 {{body.v}}', REFUSED.interpreterProgram],
    ['where julia still reads options after -e (a value -e… is more code)', "julia -e 'println(ARGS[1])' {{body.v}}", REFUSED.interpreterProgram],
    ['in the file julia -L loads', 'julia -L {{body.v}} ./x.jl', REFUSED.interpreterProgram],
    ['written into a pipe to julia given no program', 'echo {{body.v}} | julia --startup-file=no', REFUSED.shellInput],
    ['in julia -e under sudo', 'sudo -u deploy julia -e {{body.v}}', REFUSED.interpreterProgram],
    ['in julia-1.10 -e', 'julia-1.10 -e {{body.v}}', REFUSED.interpreterProgram],
    // julia's getopt_long gives an option its next word when no = follows: the script is the word after.
    ['as the script julia runs after --startup-file and its value', 'julia --startup-file no {{body.v}}', REFUSED.interpreterProgram],
    ['as the script julia runs after -O and its value', 'julia -O 3 --color yes {{body.v}}', REFUSED.interpreterProgram],
    // julia's getopt_long takes an unambiguous prefix of a long option for it: --ev is --eval, --startup --startup-file.
    ['where julia still reads options after --ev, its --eval (it was accepted)', "julia --ev 'println(ARGS[1])' {{body.v}}", REFUSED.interpreterProgram],
    ['in julia --eva=', 'julia --eva="println({{body.v}})"', REFUSED.interpreterProgram],
    ['in julia --pri, its --print', 'julia --pri {{body.v}}', REFUSED.interpreterProgram],
    ['in the file julia --lo loads', 'julia --lo {{body.v}} ./x.jl', REFUSED.interpreterProgram],
    [
      'as the script julia runs after --startup, its --startup-file, and a value (it was accepted)',
      'julia --startup no {{body.v}}',
      REFUSED.interpreterProgram,
    ],
    ['as the script julia runs after --thr 4, its --threads (it was accepted)', 'julia --thr 4 {{body.v}}', REFUSED.interpreterProgram],
    ['as the script julia runs after --output-jit-bc and its file (it was accepted)', 'julia --output-jit-bc x.bc {{body.v}}', REFUSED.interpreterProgram],
    ['written into a pipe to julia --inter, its --interactive (it was accepted)', 'echo {{body.v}} | julia --inter ./x.jl', REFUSED.shellInput],
    // Package managers: the package (or version) installed or run.
    ['as the package npx runs', 'npx {{body.v}}', REFUSED.packageCode],
    ['as the package npx -p installs', 'npx -p {{body.v}} cowsay hi', REFUSED.packageCode],
    // npx -n (npm 6's --node-arg) and --node-options give node options to the program run: --require loads code.
    ['in what npx -n gives node', 'npx -n {{body.v}} cowsay hi', REFUSED.packageCode],
    ['in what npx --node-options gives node', 'npx --node-options {{body.v}} cowsay hi', REFUSED.packageCode],
    ['in what npx --node-options= gives node', 'npx --node-options={{body.v}} cowsay hi', REFUSED.packageCode],
    ['in what npx -n gives node, alone', 'npx -n {{body.v}}', REFUSED.packageCode],
    ['in what npm exec --node-options gives node', 'npm exec --node-options {{body.v}} -- cowsay hi', REFUSED.packageCode],
    ['as a package npm install installs', 'npm install --no-save left-pad {{body.v}}', REFUSED.packageCode],
    ['as the version npm i installs (npm:, file:, git and URL specs)', 'npm i left-pad@{{body.v}}', REFUSED.packageCode],
    ['as the package npm exec runs', 'npm exec -- {{body.v}}', REFUSED.packageCode],
    ['as the initializer npm init runs', 'npm init {{body.v}}', REFUSED.packageCode],
    ['as the npm subcommand', 'npm {{body.v}}', REFUSED.packageCode],
    ['at the start of an npm word before -- (a value --script-shell=… or --node-options=…)', 'npm run build {{body.v}}', REFUSED.packageCode],
    ['in an npm option', 'npm --registry={{body.v}} ci', REFUSED.packageCode],
    ['in an npm config set', 'npm config set script-shell {{body.v}}', REFUSED.packageCode],
    ['as the package pnpm dlx runs', 'pnpm dlx {{body.v}}', REFUSED.packageCode],
    ['as a package pnpm add installs', 'pnpm add -D {{body.v}}', REFUSED.packageCode],
    ['as the package yarn dlx runs', 'yarn dlx {{body.v}}', REFUSED.packageCode],
    ['as a package yarn add installs', 'yarn add {{body.v}}', REFUSED.packageCode],
    ['as the package bunx runs', 'bunx {{body.v}}', REFUSED.packageCode],
    ['as a package bun add installs', 'bun add left-pad {{body.v}}', REFUSED.packageCode],
    ['as a package bun install installs', 'bun install {{body.v}}', REFUSED.packageCode],
    ['as a package pip install installs', 'pip install {{body.v}}', REFUSED.packageCode],
    ['as the version pip3 install installs (a value 0/../x.tar.gz makes it a path)', 'pip3 install requests=={{body.v}}', REFUSED.packageCode],
    ['as a package python3 -m pip install installs', 'python3 -m pip install --user {{body.v}}', REFUSED.packageCode],
    ['as a package pip3.11 download builds', 'pip3.11 download -d /tmp/d {{body.v}}', REFUSED.packageCode],
    ['as the package pipx run runs', 'pipx run {{body.v}}', REFUSED.packageCode],
    ['as the package uvx runs', 'uvx {{body.v}}', REFUSED.packageCode],
    ['as the package uv run --with adds', 'uv run --with {{body.v}} ./x.py', REFUSED.packageCode],
    ['as the script uv run runs', 'uv run {{body.v}}', REFUSED.packageCode],
    ['as a package uv pip install installs', 'uv pip install {{body.v}}', REFUSED.packageCode],
    ['as a gem gem install installs', 'gem install {{body.v}}', REFUSED.packageCode],
    ['as a crate cargo install builds', 'cargo install --locked {{body.v}}', REFUSED.packageCode],
    ['as the package go run builds and runs', 'go run {{body.v}}', REFUSED.packageCode],
    ['as the module go install builds', 'go install example.com/tool@{{body.v}}', REFUSED.packageCode],
    ['written into a pipe to xargs npm install, which adds what it reads to the packages', 'echo {{body.v}} | xargs npm install', REFUSED.shellInput],
    ['written into a pipe to xargs -I{} pip install {}', 'echo {{body.v}} | xargs -I{} pip install {}', REFUSED.shellInput],
    ['written into a pipe to xargs npm run build, where what it adds could be an npm option', 'echo {{body.v}} | xargs npm run build', REFUSED.shellInput],
    ['assigned to npm_config_script_shell', 'npm_config_script_shell={{body.v}} npm run build', REFUSED.shellVariable],
    ['assigned to NPM_CONFIG_NODE_OPTIONS by env', 'env NPM_CONFIG_NODE_OPTIONS={{body.v}} npm test', REFUSED.shellVariable],
    ['assigned to PIP_INDEX_URL by export', 'export PIP_INDEX_URL={{body.v}}', REFUSED.shellVariable],
    ['assigned to GOFLAGS', 'GOFLAGS={{body.v}} go build ./...', REFUSED.shellVariable],
    ['assigned to JAVA_TOOL_OPTIONS', 'JAVA_TOOL_OPTIONS={{body.v}} java -jar app.jar', REFUSED.shellVariable],
    // A container tool's -e/--env sets the variable for the program in the container, as NAME=… would outside it.
    ['assigned to LD_PRELOAD by docker run -e (it was accepted)', 'docker run -e LD_PRELOAD={{body.v}} img', REFUSED.shellVariable],
    ['assigned to NODE_OPTIONS by docker run -e', 'docker run --rm -e NODE_OPTIONS={{body.v}} node:22 node app.js', REFUSED.shellVariable],
    ['assigned to BASH_ENV by docker exec --env=', 'docker exec --env=BASH_ENV={{body.v}} app bash ./deploy.sh', REFUSED.shellVariable],
    ['assigned to LD_PRELOAD by podman run -e attached', 'podman run -eLD_PRELOAD={{body.v}} img ./app', REFUSED.shellVariable],
    [
      'assigned to npm_config_script_shell by docker compose run --env',
      'docker compose run --env npm_config_script_shell={{body.v}} web npm test',
      REFUSED.shellVariable,
    ],
    [
      'naming the variable -e sets after an entry point (a value NODE_OPTIONS=…)',
      'docker run --entrypoint node -e {{body.v}} img ./app.js',
      REFUSED.shellVariable,
    ],
    ['assigned to PYTHONPATH by -e after an entry point', 'docker run --entrypoint python3 -e PYTHONPATH={{body.v}} img ./x.py', REFUSED.shellVariable],
    // cargo splits a target's runner at spaces and runs it with the program (cargo run: `python3 -c …` runs), and runs the compiler and wrappers named.
    ['assigned to a cargo target runner', 'CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER={{body.v}} cargo run', REFUSED.shellVariable],
    ['assigned to a cargo target linker by export', 'export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER={{body.v}}', REFUSED.shellVariable],
    ['assigned to CARGO_BUILD_RUSTC_WRAPPER (RUSTC_WRAPPER in cargo configuration)', 'CARGO_BUILD_RUSTC_WRAPPER={{body.v}} cargo build', REFUSED.shellVariable],
    ['assigned to RUSTC by env', 'env RUSTC={{body.v}} cargo build', REFUSED.shellVariable],
    // A fixed -c string that runs its positional parameters: the words after it are its code.
    ['as a positional parameter a -c string runs as a command', `sh -c '"$@"' sh {{body.v}}`, REFUSED.positionalCode],
    ['as a positional parameter a -c string evaluates', `sh -c 'eval "$1"' sh {{body.v}}`, REFUSED.positionalCode],
    ['as a positional parameter a -c string gives python3 -c', `bash -c 'python3 -c "$1"' bash {{body.v}}`, REFUSED.positionalCode],
    ['as a positional parameter a -c string gives make after -- (X=$(shell …) is a variable)', `sh -c 'make -- "$1"' sh {{body.v}}`, REFUSED.positionalCode],
    ['as a positional parameter that shift moves into the command', `sh -c 'shift; exec "$@"' sh x {{body.v}}`, REFUSED.positionalCode],
    ['as a positional parameter of a -c string run in a container', `docker exec app sh -c '\${1}' sh {{body.v}}`, REFUSED.positionalCode],
    ['written into a pipe to xargs giving a -c string that evaluates its parameters', `echo {{body.v}} | xargs sh -c 'eval "$1"' sh`, REFUSED.shellInput],
    ['in the working directory docker exec -w gives a script (a planted ./deploy.sh)', 'docker exec -w {{body.v}} app ./deploy.sh', REFUSED.containerOption],
    ['in a working directory attached to -w, after fixed text', 'docker run --rm -w/srv/{{body.v}} img ./deploy.sh', REFUSED.containerOption],
    ['in the env file docker run reads (LD_PRELOAD=…)', 'docker run --env-file {{body.v}} img ./x', REFUSED.containerOption],
    ['in the host directory docker run mounts', 'docker run -v {{body.v}}:/data img ./x', REFUSED.containerOption],
    ['in a --mount after =', 'docker run --mount=type=bind,src=/srv/{{body.v}},dst=/d img ./x', REFUSED.containerOption],
    ['in what --cap-add adds', 'podman run --cap-add {{body.v}} img ./x', REFUSED.containerOption],
    ['in --privileged=', 'docker run --privileged={{body.v}} img ./x', REFUSED.containerOption],
    ['in the user docker exec runs the program as (-u 0: root in the container)', 'docker exec -u {{body.v}} app ./deploy.sh', REFUSED.containerOption],
    ['in a group docker run adds', 'docker run --group-add {{body.v}} img ./x', REFUSED.containerOption],
    ['in a device cgroup rule', 'docker run --device-cgroup-rule={{body.v}} img ./x', REFUSED.containerOption],
    ['in the network docker run joins (host)', 'docker run --network {{body.v}} img ./x', REFUSED.containerOption],
    ["as the name of a variable docker run's -e sets (LD_PRELOAD=…)", 'docker run -e {{body.v}} img ./x', REFUSED.shellVariable],
    ["as the name of a variable attached to docker run's -e", 'docker run -e{{body.v}} img ./x', REFUSED.shellVariable],
    ['as the name of a variable docker exec --env= sets', 'docker exec --env={{body.v}} app ./x', REFUSED.shellVariable],
    ['as a package npm install installs in a container', 'docker exec app npm install {{body.v}}', REFUSED.packageCode],
    ['as a package python3 -m pip installs in a container', 'docker compose exec web python3 -m pip install {{body.v}}', REFUSED.packageCode],
    ['as the package an npx entry point runs', 'docker run --rm --entrypoint npx node:22 {{body.v}}', REFUSED.packageCode],
    ['as a package pip installs through sudo', 'sudo -u deploy pip3 install {{body.v}}', REFUSED.packageCode],
    ['in a go option (-toolexec, -exec run programs)', 'go test -exec={{body.v}} ./...', REFUSED.packageCode],
    // npm explore joins the words after the package into one command string it runs with sh -c.
    ['in the command npm explore runs (joined, through a shell)', 'npm explore foo -- {{body.v}}', REFUSED.runsCommand],
    ['in a later word of the command npm explore runs', 'npm explore foo -- ls {{body.v}}', REFUSED.runsCommand],
    ['in a quoted command npm explore runs', 'npm explore foo -- "ls {{body.v}}"', REFUSED.runsCommand],
    ['in the command npm explore runs in a container', 'docker exec app npm explore foo -- ls {{body.v}}', REFUSED.runsCommand],
    // make expands $(shell …) in a command-line variable's value, also when it exports it to a recipe that reads "$$REF".
    ["in a variable given on make's command line", 'make deploy REF={{body.v}}', REFUSED.makeCode],
    ['in a := variable given to make -C', 'make -C /srv/app REF:={{body.v}} deploy', REFUSED.makeCode],
    ['in the directory make -C reads a Makefile in (a planted one)', 'make -C /srv/{{body.v}} deploy', REFUSED.makeCode],
    ['in an abbreviated make --eval (getopt_long)', 'make --ev={{body.v}} deploy', REFUSED.makeCode],
    ['in an abbreviated rake --require (OptionParser)', 'rake --req={{body.v}} deploy', REFUSED.rakeCode],
    ['in the directory rake -C reads a Rakefile in', 'rake -C {{body.v}} deploy', REFUSED.rakeCode],
    ['at the start of a word of a rails command rails hands to rake', 'bin/rails deploy {{body.v}}', REFUSED.rakeCode],
    ["as the name of a variable docker's -e= sets", 'docker run -e={{body.v}} img ./x', REFUSED.shellVariable],
    ['as the name of a variable a bundled -e sets', 'docker run -ite{{body.v}} img ./x', REFUSED.shellVariable],
    ['at the start of the image docker run runs (a value --workdir=… or the image)', 'docker run {{body.v}} img ./deploy.sh', REFUSED.containerOption],
    ['as a positional parameter bash indirection evaluates', `bash -c 'echo "\${!1}"' bash {{body.v}}`, REFUSED.positionalCode],
    ['as a positional parameter reached through BASH_ARGV', `bash -c 'eval "$BASH_ARGV"' bash {{body.v}}`, REFUSED.positionalCode],
    ['as a positional parameter a for loop without in evaluates', `sh -c 'for a; do eval "$a"; done' sh {{body.v}}`, REFUSED.positionalCode],
    ['in a variable given to make after --', 'make -- REF={{body.v}}', REFUSED.makeCode],
    ['at the start of a make word (a value --eval=… or NAME=…)', 'make -s {{body.v}}', REFUSED.makeCode],
    ['in what make --eval takes', 'make --eval={{body.v}} deploy', REFUSED.makeCode],
    ['in the makefile make -f reads', 'make -f {{body.v}} deploy', REFUSED.makeCode],
    ['in a variable given to make -j 4 through sudo', 'sudo make -j 4 deploy REF={{body.v}}', REFUSED.makeCode],
    [
      "written into a pipe to xargs make, which adds what it reads to make's words (a value X=$(shell …))",
      'echo {{body.v}} | xargs make deploy',
      REFUSED.shellInput,
    ],
    ['written into a pipe to xargs -I{} make … REF={}', "printf '%s\\n' {{body.v}} | xargs -I{} make deploy REF={}", REFUSED.shellInput],
    // rake reads options among its tasks up to -- (Ruby's OptionParser): a value --execute=… runs Ruby code, a task name runs that task.
    ['at the start of a word of rake (a value --execute=… or a task)', 'rake deploy {{body.v}}', REFUSED.rakeCode],
    ['at the start of a word of bundle exec rake', 'bundle exec rake deploy {{body.v}}', REFUSED.rakeCode],
    ['at the start of a word of bin/rake in a container', 'docker exec app bin/rake deploy {{body.v}}', REFUSED.rakeCode],
    ['as the task rake runs after --', 'rake -- {{body.v}}', REFUSED.rakeCode],
    ["in a task's name", 'rake deploy:{{body.v}}', REFUSED.rakeCode],
    ['in the Ruby code rake -e runs', 'rake -e {{body.v}}', REFUSED.rakeCode],
    ['in the Ruby code rake --execute= runs', 'rake --execute={{body.v}}', REFUSED.rakeCode],
    ['in the Rakefile rake -f loads', 'rake -f Rakefile.{{body.v}} deploy', REFUSED.rakeCode],
    ["in a rake task's arguments (a line REF=… in the value would be a setting: x\\nGIT_SSH_COMMAND=…)", 'rake "deploy[{{body.v}}]"', REFUSED.rakeCode],
    ["in a rake task's arguments after --", 'rake -q -- "deploy[{{body.v}}]"', REFUSED.rakeCode],
    ['in RAKEOPT, the options of a rake the tasks start', 'rake deploy RAKEOPT={{body.v}}', REFUSED.rakeCode],
    ['in the library rake -r requires (in the same word)', 'rake -r./lib/{{body.v}} deploy', REFUSED.rakeCode],
    ['after rake -j, whose number is optional (a value --execute=… is read as an option)', 'rake -j {{body.v}} deploy', REFUSED.rakeCode],
    ['at the start of a word of a task rails hands to rake', 'bin/rails db:seed {{body.v}}', REFUSED.rakeCode],
    ['in a setting rake gives its tasks of a variable that loads code', 'rake deploy RUBYOPT={{body.v}}', REFUSED.shellVariable],
    // corepack runs the package manager named by its first operand (pnpm@9.1.0 with a version) with the words after it.
    ['as a package corepack npm install installs', 'corepack npm install {{body.v}}', REFUSED.packageCode],
    ['as a package corepack pnpm@9 add installs', 'corepack pnpm@9.1.0 add -D {{body.v}}', REFUSED.packageCode],
    ['as the package corepack yarn dlx runs', 'corepack yarn dlx {{body.v}}', REFUSED.packageCode],
    ['at the start of a word of corepack pnpm before -- (a value could be a pnpm option)', 'corepack pnpm run deploy {{body.v}}', REFUSED.packageCode],
    ['as the package manager corepack runs', 'corepack {{body.v}} install', REFUSED.packageCode],
    // npm reads a word starting with - after -m as its own option (-m --script-shell=… runs a shell it names), not as the message.
    ['as the start of npm version -m message', 'npm version patch -m {{body.v}}', REFUSED.packageCode],
    ['after a dash starting npm version -m message', 'npm version patch -m "-{{body.v}}"', REFUSED.packageCode],
    [
      'as the start of npm version --message= (npm reads a value --script-shell=… there as its option)',
      'npm version patch --message={{body.v}}',
      REFUSED.packageCode,
    ],
    ['as the version of the package manager corepack use fetches', 'corepack use pnpm@{{body.v}}', REFUSED.packageCode],
    ['as a package corepack npm install installs through sudo', 'sudo corepack npm i {{body.v}}', REFUSED.packageCode],
    // bundle exec, poetry run, conda run… run the program their first operand names; the words after it are that program's.
    ['as the program bundle exec runs', 'bundle exec {{body.v}}', REFUSED.packageCode],
    ['as the program bundler exec runs, after a path', 'bundler exec ./bin/{{body.v}}', REFUSED.packageCode],
    ['as the program of ruby -e that bundle exec runs', 'bundle exec ruby -e {{body.v}}', REFUSED.interpreterProgram],
    ['as the program poetry run runs', 'poetry run {{body.v}}', REFUSED.packageCode],
    ['as the program of python -c that poetry run runs', 'poetry run python -c {{body.v}}', REFUSED.interpreterProgram],
    ['as the program pipenv run runs', 'pipenv run {{body.v}} --check', REFUSED.packageCode],
    ['as the command string of sh -c that pipenv run runs', 'pipenv run sh -c {{body.v}}', REFUSED.shellScript],
    ['as the program of python3 -c that uv run runs (it was accepted as an argument)', 'uv run python3 -c {{body.v}}', REFUSED.interpreterProgram],
    ['as the program of python3 -c that uv run --with runs', 'uv run --with requests python3 -c {{body.v}}', REFUSED.interpreterProgram],
    ['as the program pdm run runs', 'pdm run {{body.v}}', REFUSED.packageCode],
    ['as the module python -m runs under pdm run -p', 'pdm run -p /srv/app python -m {{body.v}}', REFUSED.interpreterProgram],
    ['as the program hatch run runs', 'hatch run {{body.v}}', REFUSED.packageCode],
    // hatch run takes the environment as a prefix of the program (ENV:CMD); hatch env run takes it with -e, the command after it.
    [
      'as the program of python -c that hatch run runs in an environment named before it (it was accepted)',
      'hatch run env:python -c {{body.v}}',
      REFUSED.interpreterProgram,
    ],
    ['as the command string of sh -c that hatch run runs in an environment', 'hatch run test:sh -c {{body.v}}', REFUSED.shellScript],
    // hatch splits ENV:CMD at the last colon, and an empty name is the system environment (they were accepted).
    ['as the program of python -c that hatch run runs in the system environment', 'hatch run :python -c {{body.v}}', REFUSED.interpreterProgram],
    ['as the program of python -c that hatch run runs after a name with a colon', 'hatch run a:b:python -c {{body.v}}', REFUSED.interpreterProgram],
    ['as the program of python -c that hatch run runs after a name with a slash', 'hatch run ci/x:python -c {{body.v}}', REFUSED.interpreterProgram],
    [
      'as the program of python -c that hatch run runs after a matrix filter (it was accepted)',
      'hatch run +py=3.12 python -c {{body.v}}',
      REFUSED.interpreterProgram,
    ],
    ['as the program of python -c that hatch env run runs after -- (it was accepted)', 'hatch env run -- python -c {{body.v}}', REFUSED.interpreterProgram],
    ['as the program of python -c that hatch env run -e runs', 'hatch env run -e test -- python -c {{body.v}}', REFUSED.interpreterProgram],
    // hatch run's -x, -e, -i before the program are matrix exclusions, taking no value (it was accepted: -x took timeout for its value).
    ['as the command timeout runs under hatch run after a matrix exclusion', 'hatch run -x timeout 5 {{body.v}}', REFUSED.commandName],
    ['as the program hatch env run runs', 'hatch env run -- {{body.v}}', REFUSED.packageCode],
    ['as the environment hatch run names before the program', 'hatch run {{body.v}}:cov', REFUSED.packageCode],
    ['as the program conda run runs', 'conda run {{body.v}}', REFUSED.packageCode],
    ['as the environment conda run -n chooses', 'conda run -n {{body.v}} python ./x.py', REFUSED.packageCode],
    ['as the program of python -c that conda run -n runs', 'conda run -n base python -c {{body.v}}', REFUSED.interpreterProgram],
    ['as the program mamba run -n runs', 'mamba run -n base {{body.v}}', REFUSED.packageCode],
    ['as the program of node -e that micromamba run -p runs', 'micromamba run -p /opt/env node -e {{body.v}}', REFUSED.interpreterProgram],
    // micromamba run -a/--attach takes the next word, also an empty one: the program comes after it.
    [
      'as the program of python -c that micromamba run runs after an empty -a (it was accepted)',
      'micromamba run -a "" -n base python -c {{body.v}}',
      REFUSED.interpreterProgram,
    ],
    [
      'as the program of python -c that micromamba run runs after -a stdout (it was accepted)',
      'micromamba run -a stdout python -c {{body.v}}',
      REFUSED.interpreterProgram,
    ],
    ['as the program of python -c that mamba run runs after an empty -a', "mamba run -a '' -n base python -c {{body.v}}", REFUSED.interpreterProgram],
    ['as the program micromamba run runs after an empty -a', 'micromamba run -a "" -n base {{body.v}}', REFUSED.packageCode],
    [
      'as the program of python -c that conda run runs after an option not known and -n',
      'conda run --frobnicate -n base python -c {{body.v}}',
      REFUSED.interpreterProgram,
    ],
    // rails runner (r) evaluates its first operand as Ruby code (or runs the file it names); console and dbconsole read code from their input.
    ['as the code bundle exec rails runner evaluates (it was accepted)', 'bundle exec rails runner {{body.v}}', REFUSED.interpreterProgram],
    ['as the code rails runner evaluates (it was accepted)', 'rails runner \'Deploy.run("{{body.v}}")\'', REFUSED.interpreterProgram],
    ['as the code rails r evaluates', 'rails r {{body.v}}', REFUSED.interpreterProgram],
    ['as the code bin/rails runner evaluates after -e and the environment', './bin/rails runner -e production {{body.v}}', REFUSED.interpreterProgram],
    ['as the environment rails runner loads the file of', 'bin/rails runner -e {{body.v}} ./x.rb', REFUSED.interpreterProgram],
    ['as the code rails runner evaluates in a container', 'docker exec app bin/rails runner {{body.v}}', REFUSED.interpreterProgram],
    ['as the command rails runs', 'rails {{body.v}}', REFUSED.commandName],
    ['as the code rails runner evaluates, rails run by ruby', 'ruby bin/rails runner {{body.v}}', REFUSED.interpreterProgram],
    ['written into a pipe to rails console', 'echo {{body.v}} | bin/rails console', REFUSED.shellInput],
    ['in a here-document rails runner - reads as its code', 'rails runner - <<EOF\n{{body.v}}\nEOF', REFUSED.shellInput],
    // An application template is Ruby code, from a file or a URL (they were accepted).
    ['as the template rails new applies', 'rails new app -m {{body.v}}', REFUSED.interpreterProgram],
    [
      'as the name of the application rails new makes, where a value --template=… is read as its option',
      'bin/rails new {{body.v}}',
      REFUSED.interpreterProgram,
    ],
    ['as the template rails plugin new applies', 'rails plugin new engine --template={{body.v}}', REFUSED.interpreterProgram],
    ['as the template rails app:template applies', 'bin/rails app:template LOCATION={{body.v}}', REFUSED.interpreterProgram],
    ['as the program of ruby -e that bundle exec runs under sudo', 'sudo -u deploy bundle exec ruby -e {{body.v}}', REFUSED.interpreterProgram],
    ['as the program of python -c that poetry run runs in a container', 'docker exec app poetry run python -c {{body.v}}', REFUSED.interpreterProgram],
    ['written into a pipe to xargs poetry run, which adds what it reads as the program', 'echo {{body.v}} | xargs poetry run', REFUSED.shellInput],
    // Their add and install subcommands install a package (its build or link scripts run): a value after fixed text is its version or source.
    ['as the version poetry add installs', 'poetry add requests@{{body.v}}', REFUSED.packageCode],
    ['as the plugin poetry self add installs', 'poetry self add poetry-plugin-{{body.v}}', REFUSED.packageCode],
    ['as the package index poetry source add names', 'poetry source add extra https://pypi.example/{{body.v}}', REFUSED.packageCode],
    ['as the version pipenv install installs', 'pipenv install requests=={{body.v}}', REFUSED.packageCode],
    ['as the version pdm add installs', 'pdm add requests=={{body.v}}', REFUSED.packageCode],
    ['as the version bundle add adds', 'bundle add rails-{{body.v}}', REFUSED.packageCode],
    ['as the version conda install installs', 'conda install -y numpy={{body.v}}', REFUSED.packageCode],
    ['as a package of the environment mamba create makes', 'mamba create -n x python={{body.v}}', REFUSED.packageCode],
    ['as the version micromamba install installs', 'micromamba install -y pkg={{body.v}}', REFUSED.packageCode],
    ['as the program rye run runs (it was accepted)', 'rye run {{body.v}}', REFUSED.packageCode],
    ['as the program of python -c that rye run runs', 'rye run python -c {{body.v}}', REFUSED.interpreterProgram],
    ['as the version rye add adds', 'rye add requests=={{body.v}}', REFUSED.packageCode],
    ['in the command line pixi run joins for its task shell (it was accepted)', 'pixi run deploy -- {{body.v}}', REFUSED.runsCommand],
    ['as the program of python -c that pixi exec runs', 'pixi exec python -c {{body.v}}', REFUSED.interpreterProgram],
    ['as the version pixi add adds', 'pixi add numpy={{body.v}}', REFUSED.packageCode],
    // npx, uvx and pipx run an interpreter's package with the words after it, its options and program.
    ['as the program of tsx -e that npx runs', 'npx tsx -e {{body.v}}', REFUSED.interpreterProgram],
    ['as the program of tsx -e that npx --yes runs, with a version', 'npx --yes tsx@4 -e {{body.v}}', REFUSED.interpreterProgram],
    ['as the program of python -c that uvx runs, with a version', 'uvx python@3.12 -c {{body.v}}', REFUSED.interpreterProgram],
    ['as the program of ipython -c that pipx run runs', 'pipx run ipython -c {{body.v}}', REFUSED.interpreterProgram],
    ['as the program of tsx -e that npm exec runs after -- (it was accepted)', 'npm exec -- tsx -e {{body.v}}', REFUSED.interpreterProgram],
    ['as the program of tsx -e that npm exec gives its words after -- (it was accepted)', 'npm exec tsx -- -e {{body.v}}', REFUSED.interpreterProgram],
    ['as the program of node -e that pnpm dlx gives its words after --', 'pnpm dlx node -- -e {{body.v}}', REFUSED.interpreterProgram],
    // An option's value before the package is no package: the interpreter's package follows it.
    ['as the program of python -c that uvx --python 3.12 runs', 'uvx --python 3.12 python -c {{body.v}}', REFUSED.interpreterProgram],
    ['as the program of tsx -e that npx -p tsx runs', 'npx -p tsx tsx -e {{body.v}}', REFUSED.interpreterProgram],
    ['as the program of python -c that pipx run --spec runs', 'pipx run --spec python3 python -c {{body.v}}', REFUSED.interpreterProgram],
    // exec without a command keeps its redirections for the shell: every later command reads them, python3 given no program as its program.
    ['in a here-document given to exec, which a later python3 reads as its program', 'exec <<EOF\n{{body.v}}\nEOF\npython3', REFUSED.shellInput],
    ['in a here-string given to exec', 'exec <<< {{body.v}}; sh', REFUSED.shellInput],
    ['in a here-document exec gives another descriptor', 'exec 3<<EOF\n{{body.v}}\nEOF\npython3 /dev/fd/3', REFUSED.shellInput],
    ['in a process substitution exec makes the input of later commands', 'exec < <(echo {{body.v}}); node', REFUSED.shellInput],
    ['in a here-document given to exec after another redirection', 'exec 2>/dev/null <<-EOF\n\t{{body.v}}\n\tEOF\nperl', REFUSED.shellInput],
    ['in a here-document given to exec after --, which ends its options', 'exec -- <<EOF\n{{body.v}}\nEOF\npython3', REFUSED.shellInput],
    // The first word after the image (run, create) or the container (exec) is the program run in the container.
    ['as the program docker run runs after the image (it was accepted)', 'docker run --rm -v /srv:/srv img {{body.v}}', REFUSED.commandName],
    ['as the program docker exec runs after the container', 'docker exec -it -u 0 app {{body.v}} --verbose', REFUSED.commandName],
    ['as part of the program podman exec runs', 'podman exec -w /srv app ./bin/{{body.v}}', REFUSED.commandName],
    ['as the program nerdctl run runs, with options bundled and attached', 'nerdctl run -itp8080:80 --name=web img {{body.v}}', REFUSED.commandName],
    ['as the program docker create gives the container', 'docker create --name job img {{body.v}}', REFUSED.commandName],
    ['as the program docker compose exec runs', 'docker compose exec -T web {{body.v}}', REFUSED.commandName],
    ['as the program docker container run runs', 'docker container run --rm img {{body.v}}', REFUSED.commandName],
    ['as the program docker-compose run runs (the standalone v1 binary)', 'docker-compose run --rm -T web {{body.v}}', REFUSED.commandName],
    ['as the command string of sh -c that docker-compose exec runs', 'docker-compose exec -T web sh -c {{body.v}}', REFUSED.shellScript],
    ['as the program of python3 -c that docker create gives the container', 'docker create img python3 -c {{body.v}}', REFUSED.interpreterProgram],
    ['as the program of python3 -c that podman exec --latest runs (no container named)', 'podman exec -l python3 -c {{body.v}}', REFUSED.interpreterProgram],
    ['as the program docker run runs after --, which ends its options', 'docker run --rm -- img {{body.v}}', REFUSED.commandName],
    [
      "as the program docker run runs after an empty --entrypoint, which clears the image's",
      'docker run --rm --entrypoint "" img {{body.v}}',
      REFUSED.commandName,
    ],
    ['as the program docker run runs after an empty --entrypoint=', 'docker run --entrypoint= img {{body.v}}', REFUSED.commandName],
    // The program run in the container is read as a command name with the host's rules: a wrapper's or env's command, git's and make's options.
    ['as the command timeout runs in a container (it was accepted)', 'docker exec app timeout 5 {{body.v}}', REFUSED.commandName],
    ['as the command env runs in a container (it was accepted)', 'docker exec app env {{body.v}}', REFUSED.commandName],
    ['as the command env -u NAME runs in a container', 'docker exec app env -u HOME {{body.v}}', REFUSED.commandName],
    ['as the command nice runs in a container started by docker run (it was accepted)', 'docker run --rm img nice -n 5 {{body.v}}', REFUSED.commandName],
    ['as the command sudo runs in a container', 'docker exec -u 0 app sudo -u deploy {{body.v}}', REFUSED.commandName],
    ['as the command timeout runs in a container after --', 'docker run --rm -- img timeout 5 {{body.v}}', REFUSED.commandName],
    ['as the command timeout runs in a container docker compose exec runs', 'docker compose exec -T web timeout 5 {{body.v}}', REFUSED.commandName],
    ['as the command timeout runs in a container named timeout', 'docker exec timeout timeout 5 {{body.v}}', REFUSED.commandName],
    ['as the command string of sh -c that env runs in a container', 'podman exec app env X=1 sh -c {{body.v}}', REFUSED.shellScript],
    ['as the command string of sh -c that timeout runs in a container', 'docker exec app timeout 5 sh -c {{body.v}}', REFUSED.shellScript],
    ['assigned to PATH by env in a container', 'docker exec app env PATH={{body.v}} ./deploy', REFUSED.shellVariable],
    ['in a git -c value in a container (it was accepted)', 'docker exec app git -c {{body.v}} status', REFUSED.gitOption],
    ["in make's command line in a container (it was accepted)", 'docker exec app make {{body.v}}', REFUSED.makeCode],
    // A container or image named like a shell or interpreter, then the program: a wrapper, env or git read as on the host.
    ['as the command timeout runs in a container named sh (it was accepted)', 'docker exec sh timeout 5 {{body.v}}', REFUSED.commandName],
    ['as the command env runs in an image named node (it was accepted)', 'docker run --rm node env {{body.v}}', REFUSED.commandName],
    ['in a git -c value in a container named python3', 'docker exec python3 git -c {{body.v}} status', REFUSED.gitOption],
    // A package manager as that program, too: the image named node runs npx, the one named python pip (they were accepted).
    ['as the command npx -c runs in an image named node', 'docker run --rm node npx -c {{body.v}}', REFUSED.packageCode],
    ['as the package pip installs in an image named python', 'docker run --rm python pip install {{body.v}}', REFUSED.packageCode],
    [
      'as the program of ruby -e that bundle exec runs in an image named ruby',
      'docker run --rm ruby bundle exec ruby -e {{body.v}}',
      REFUSED.interpreterProgram,
    ],
    [
      "as node's -e program in an image named node, whose entry point runs node with arguments starting with -",
      'docker run --rm node -e {{body.v}}',
      REFUSED.interpreterProgram,
    ],
    // podman exec -l/--latest names no container: the first operand is the program.
    ['as the program podman exec -l runs (it was accepted)', 'podman exec -l {{body.v}}', REFUSED.commandName],
    ['as the program podman exec --latest runs (it was accepted)', 'podman exec -it --latest {{body.v}}', REFUSED.commandName],
    ['as the command env runs under podman exec -il', 'podman exec -il env {{body.v}}', REFUSED.commandName],
    ['as the command timeout runs under podman exec --latest=true (it was accepted)', 'podman exec --latest=true timeout 5 {{body.v}}', REFUSED.commandName],
    // After an option the check does not know, a wrapper or env that may be the program could run a later word: every one is refused.
    [
      'after a wrapper that may be the program, past an option the check does not know',
      'docker run --frobnicate x img timeout 5 {{body.v}}',
      REFUSED.runsCommand,
    ],
    ['after env that may be the program, past an option the check does not know', 'docker run --frobnicate x img env ./x {{body.v}}', REFUSED.runsCommand],
    [
      'after rails that may be the program, past an option the check does not know',
      'docker run --frobnicate x img rails runner {{body.v}}',
      REFUSED.runsCommand,
    ],
    [
      'one word later than the program after an option the check does not know (it may have taken the next word)',
      'docker run --frobnicate x img {{body.v}}',
      REFUSED.commandName,
    ],
  ];
  for (const [label, template, reason] of refused) {
    it(`refuses a token ${label}`, () => {
      expect(places(template)).to.deep.equal([`refused: ${reason}`]);
    });
  }

  const accepted: Array<[string, string]> = [
    [
      "positional parameters a fixed -c string uses as data (echo, a script's argument, a loop's list, a default), and $0 and $#",
      `sh -c 'echo "$1"' sh {{body.v}}; sh -c './deploy.sh "$1"' sh {{body.v}}; sh -c 'for f in "$@"; do ./x "$f"; done' sh {{body.v}}; sh -c 'cd /srv && ./deploy.sh "\${1:-main}"' sh {{body.v}}; sh -c 'echo $# $0' sh {{body.v}}; echo {{body.v}} | xargs sh -c './deploy.sh "$@"' sh`,
    ],
    [
      "values of docker run's options that choose neither what runs nor what the container reaches",
      'docker run --rm -e REF={{body.ref}} img ./deploy.sh; docker run -eREF={{body.v}} img ./x; docker run --name job-{{body.v}} img ./x; docker run --label x={{body.v}} img ./x; docker run -m{{body.v}} img ./x; docker logs -e{{body.v}} app; docker run -iteREF={{body.v}} img ./x; docker run img:{{body.v}} ./deploy.sh; docker exec app-{{body.v}} ./deploy.sh; rails generate model {{body.v}}; rake --jobs={{body.v}} deploy',
    ],
    [
      "a setting of a name of rake's caller's own (the first NAME= takes the whole word), the environment, what --jobs= and --suppress-backtrace take, and rails commands that are no task",
      'rake deploy REF={{body.v}}; rake -q -- deploy REF={{body.v}}; REF={{body.v}} rake deploy; rake --jobs={{body.v}} deploy; rake --suppress-backtrace {{body.v}} deploy; bin/rails db:migrate VERSION={{body.v}}; rails generate model {{body.v}}; echo {{body.v}} | rake deploy',
    ],
    ['arguments after the image of a shell entry point given a script', 'docker run --rm --entrypoint sh img ./deploy.sh {{body.v}}'],
    ['positional parameters after a shell entry point -c string', `docker run --entrypoint sh img -c 'echo "$1"' sh {{body.v}}`],
    ['arguments of a script given to an interpreter entry point', 'docker run --entrypoint python3 -v /srv:/srv img /srv/x.py {{body.v}}'],
    [
      'docker options that take data, and arguments of an entry point the check does not know',
      'docker run --rm -e REF={{body.v}} --entrypoint /app/deploy img {{body.v}}',
    ],
    ['an image tag after an entry point', 'docker run --entrypoint sh registry.example.com/app:{{body.v}} ./deploy.sh'],
    ['docker options that take data before the image of a wrapper entry point', 'docker run --rm --entrypoint timeout -e REF={{body.v}} img 5 ./deploy.sh'],
    ['arguments of a script docker compose run --quiet-pull runs (it was refused)', 'docker compose run --rm --quiet-pull web ./deploy.sh {{body.v}}'],
    ['npm run arguments after --', 'npm run build -- --env={{body.v}}'],
    ['npm test arguments after --', 'npm test -- {{body.v}}'],
    ['npx arguments after the package it runs', 'npx --yes eslint --fix {{body.v}}'],
    [
      "arguments of the script an interpreter's package run by npx or uvx runs, and of go run's packages that bear an interpreter's name",
      'npx tsx ./deploy.ts {{body.v}}; uvx python ./x.py {{body.v}}; go run ./cmd/node {{body.v}}; go run . {{body.v}}',
    ],
    ['pip arguments of subcommands that install nothing', 'pip show -- {{body.v}}; pip uninstall -y -- {{body.v}}'],
    ['go run arguments after the package', 'go run ./cmd/deploy --ref {{body.v}}'],
    ['uv run arguments after the script', 'uv run ./deploy.py {{body.v}}'],
    ['cargo run arguments after --', 'cargo run --release -- {{body.v}}'],
    [
      'values of options that take data (go test -run, cargo --features, pip --target)',
      'go test ./... -run {{body.v}}; cargo build --features {{body.v}}; pip install -r r.txt --target ./vendor/{{body.v}}',
    ],
    [
      'arguments of a script a package manager runs in an image named like an interpreter',
      'docker run --rm node npm run deploy -- {{body.v}}; docker run --rm ruby bundle exec ./bin/deploy {{body.v}}',
    ],
    [
      'npm run in a container with the arguments after --, and docker logs of a container named npm',
      'docker exec app npm run build -- {{body.v}}; docker logs npm --tail {{body.v}}',
    ],
    [
      'an npm version commit message that starts with fixed text',
      `npm version patch -m "Release %s for {{body.v}}"; npm version minor --message='Deploy {{body.v}}'`,
    ],
    ['arguments after a script given to tsx and ts-node', 'tsx scripts/deploy.ts {{body.v}}; ts-node ./deploy.ts {{body.v}}'],
    [
      'arguments after the program of R, Rscript and julia',
      "R --vanilla -e 'commandArgs(TRUE)' --args {{body.v}}; Rscript ./x.R {{body.v}}; julia script.jl {{body.v}}; julia -e 'println(ARGS)' -- {{body.v}}",
    ],
    [
      "arguments of julia's script after abbreviated options and their values, and after an optional value given with =",
      'julia --startup no ./x.jl {{body.v}}; julia --thr 4 ./x.jl {{body.v}}; julia --q ./x.jl {{body.v}}; julia --proj=. ./x.jl {{body.v}}; julia --lo ./lib.jl ./x.jl {{body.v}}',
    ],
    ['the output file of R CMD BATCH and julia -t threads', 'R CMD BATCH ./job.R ./logs/{{body.v}}.log; julia -t {{body.v}} ./x.jl'],
    ['arguments of R CMD tools that run no code of theirs', 'R CMD REMOVE -l /srv/lib {{body.v}}; R CMD config {{body.v}}; R CMD Rprof ./{{body.v}}.out'],
    [
      "arguments of julia's script after options that take the next word, and a word CMD after R's --args",
      "julia --startup-file no -O3 ./x.jl {{body.v}}; julia --color=yes ./x.jl {{body.v}}; R -e 'commandArgs(TRUE)' --args CMD {{body.v}}",
    ],
    ['cargo variables that choose no program', 'CARGO_TARGET_DIR=/tmp/{{body.v}} CARGO_TERM_COLOR={{body.v}} cargo build'],
    [
      "variables of names of the template's own set by a container tool's -e",
      'docker run --rm -e REF={{body.v}} --env=MODE={{body.v}} -eX={{body.v}} img ./deploy.sh; docker exec -e RANDOM={{body.v}} app ./x',
    ],
    [
      "a -e that may be the command's in the container (where the check cannot tell docker's options from the command's)",
      'docker exec app ./deploy -e {{body.v}}; docker run --rm img ./deploy -e {{body.v}}',
    ],
    ["a value npm explore's command reads from the environment", `REF={{body.v}} npm explore foo -- './deploy.sh "$REF"'`],
    [
      "a value make's recipe reads from the environment, a target after fixed text, and a target in a fixed make -C directory",
      'REF={{body.v}} make deploy; make deploy-{{body.v}}; make -C /srv/app deploy-{{body.v}}',
    ],
    ['xargs -I{} giving make a target after fixed text', 'echo {{body.v}} | xargs -I{} make deploy-{}'],
    ['corepack pnpm run arguments after --', 'corepack enable && corepack pnpm run deploy -- {{body.v}}'],
    ['arguments after the script of an interpreter npm exec runs', 'npm exec -- tsx ./x.ts {{body.v}}; npm exec tsx -- ./x.ts {{body.v}}'],
    ['xargs giving a package run its arguments', 'echo {{body.v}} | xargs npx eslint; echo {{body.v}} | xargs -I{} npm run build -- {}'],
    ['a here-document given to a command exec runs, which reads it as data', 'exec ./deploy.sh <<EOF\n{{body.v}}\nEOF\nexec cat <<< {{body.v}}'],
    [
      'arguments of the program docker run and exec run, option values, and an image or container named by a value after fixed text',
      'docker run --rm --name {{body.v}} -v /srv:/srv img ./deploy.sh {{body.v}}; docker exec -u 0 app ./deploy {{body.v}}; docker exec app-{{body.v}} ./x; podman run img:{{body.v}} ./x; docker run --rm -- img ./deploy.sh {{body.v}}; docker-compose run --rm web ./deploy.sh {{body.v}}; docker-compose logs {{body.v}}',
    ],
    [
      'arguments of the command a wrapper or env runs in a container, of a container named timeout, and env values of names of their own',
      'docker exec app timeout 5 ./deploy.sh {{body.v}}; docker run --rm img nice -n 5 ./x {{body.v}}; docker exec app env REF={{body.v}} ./deploy; docker exec timeout ./x {{body.v}}; podman exec -l ./x {{body.v}}',
    ],
    [
      'arguments of a script a shell or interpreter run in a container runs, though the script bears the name of a wrapper',
      'docker exec app sh timeout 5 {{body.v}}; docker exec app python3 env {{body.v}}; kubectl exec pod -- sh timeout 5 {{body.v}}',
    ],
    [
      'arguments of a program run in a container that name a shell or a wrapper, as on the host, and of one after an option the check does not know',
      'docker exec app ./deploy.sh sh -c {{body.v}}; docker run img echo timeout {{body.v}}; docker run --frobnicate x img ./deploy.sh {{body.v}}; docker exec app git log -- {{body.v}}',
    ],
    [
      'arguments of the program bundle exec, poetry run, pipenv run, pdm run and hatch run run',
      'bundle exec rake deploy REF={{body.v}}; poetry run pytest -k {{body.v}}; pipenv run ./deploy.py {{body.v}}; pdm run deploy {{body.v}}; hatch run test:cov {{body.v}}; rye run ./x.py {{body.v}}',
    ],
    [
      "arguments after rails runner's code or file, and of rails commands that run no code",
      "rails runner ./script/deploy.rb {{body.v}}; bundle exec rails runner 'puts ARGV[0]' {{body.v}}; rails generate model {{body.v}}; rails test test/x_test.rb:{{body.v}}; rails server -p {{body.v}}; ruby bin/rails runner ./x.rb {{body.v}}; ruby ./x.rb runner {{body.v}}; rails runner ./x.rb <<EOF\n{{body.v}}\nEOF",
    ],
    [
      'arguments of a script or program hatch run and hatch env run run in an environment',
      'hatch run test:pytest -k {{body.v}}; hatch run env:python ./x.py {{body.v}}; hatch env run -e test -- ./deploy.sh {{body.v}}; hatch run -x test:pytest -k {{body.v}}',
    ],
    [
      'arguments of the program conda run, micromamba run and uv run run, and of a script after python -c',
      `conda run -n base python ./x.py {{body.v}}; micromamba run -n env ./deploy {{body.v}}; micromamba run -a "" -n env python ./x.py {{body.v}}; uv run --with requests ./x.py {{body.v}}; poetry run python -c 'import sys; print(sys.argv[1])' {{body.v}}`,
    ],
    [
      'arguments after python -c run by conda run --no-capture-output and uv run --no-project, flags that take no value',
      `conda run --no-capture-output -n base python -c 'import sys' {{body.v}}; uv run --no-project python3 -c 'import sys' {{body.v}}`,
    ],
  ];
  for (const [label, template] of accepted) {
    it(`accepts ${label}`, () => {
      expect(places(template).every((p) => !p.startsWith('refused'))).to.equal(true, places(template).join('\n'));
    });
  }

  it('refuses a token after the dash of a docker option after an entry point, and reads the next word as the image', () => {
    // docker reads -{{…}} as its option (a value -rm is --rm): img is the image, and -c's operand sh's command string.
    expect(places('docker run --entrypoint sh -{{body.flag}} img -c {{body.v}}')).to.deep.equal([
      `refused: ${REFUSED.entrypoint}`,
      `refused: ${REFUSED.shellScript}`,
    ]);
  });

  it('refuses a token that could name a docker run option (--{{…}}, -it{{…}}): a value --privileged or --volume=/:/host takes the isolation away', () => {
    expect(places('docker run --{{body.flag}} x img ./x; docker run -it{{body.flag}} img ./x')).to.deep.equal([
      `refused: ${REFUSED.containerOption}`,
      `refused: ${REFUSED.containerOption}`,
    ]);
  });

  it('names in every refusal message that points to docs/triggers.md a bullet that exists there', () => {
    const docs = readFileSync(new URL('../../../../docs/triggers.md', import.meta.url), 'utf8');
    const named = Object.values(REFUSED).flatMap((text) => /"Places a token may not stand": ([^)]+)\)$/.exec(text)?.[1] ?? []);
    expect(named.length).to.be.greaterThan(7);
    for (const name of named) expect(docs.includes(`\n- **${name}**: `), `no bullet "- **${name}**:" in docs/triggers.md`).to.equal(true);
  });

  it('points a refusal after an entry point to the containers bullet of docs/triggers.md, which explains it', () => {
    const pointer = /\(docs\/triggers\.md, "Places a token may not stand": ([^)]+)\)$/.exec(REFUSED.entrypoint);
    expect(pointer?.[1]).to.equal('containers');
    const bullet = /^- \*\*containers\*\*:[\s\S]*?(?=^- )/m.exec(readFileSync(new URL('../../../../docs/triggers.md', import.meta.url), 'utf8'));
    expect(bullet?.[0]).to.include('an option the check does').and.include('--entrypoint');
  });
});
