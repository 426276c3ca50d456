import { expect } from 'chai';
import { findTokenPlaces, REFUSED } from '../../../../src/domain/templates/shell-contexts.js';

/** The place of every token of a template: its context, or `refused: <reason>`. */
const places = (template: string): string[] => findTokenPlaces(template).map((t) => ('context' in t.place ? t.place.context : `refused: ${t.place.refused}`));

/**
 * Places where a value is no code itself but chooses the code that runs: the directory later commands run in, the
 * environment whose files a framework loads, the program a container runs, the requirements pip reads from its input,
 * a variable a -c string copies a positional parameter into, the command a preloader runs, a file a container tool writes.
 */
describe('findTokenPlaces: values that choose the code that runs', () => {
  const refused: Array<[string, string, string]> = [
    // cd and pushd: the commands after them run in the directory the value names (a planted ./deploy.sh, Makefile, package.json).
    ['as the directory cd changes to before make', 'cd {{body.v}} && make', REFUSED.directory],
    ['in the directory cd changes to, after fixed text (a value ../../tmp/planted leaves it)', 'cd /srv/{{body.v}} && npm test', REFUSED.directory],
    ['as the directory pushd changes to', 'pushd {{body.v}}', REFUSED.directory],
    ['as the directory cd changes to after its options, quoted', 'cd -P -- "/srv/{{body.v}}"; ./deploy.sh', REFUSED.directory],
    ['as the directory cd changes to in a subshell', '(cd {{body.v}}; make deploy)', REFUSED.directory],
    ['as the directory cd changes to through builtin', 'builtin cd {{body.v}} && make', REFUSED.directory],
    ['in a command substitution that gives cd its directory', 'cd "$(printf %s {{body.v}})" && make', REFUSED.directory],
    ['assigned to CDPATH, which chooses the directory cd app goes to', 'CDPATH={{body.v}} cd app && make', REFUSED.shellVariable],
    ['as a positional parameter a -c string gives cd', `sh -c 'cd "$1" && make' sh {{body.v}}`, REFUSED.positionalCode],
    // Variables that choose the code a Ruby or Python project runs.
    ['assigned to BUNDLE_GEMFILE (the Gemfile bundler loads is Ruby)', 'BUNDLE_GEMFILE={{body.v}} bundle exec rake deploy', REFUSED.shellVariable],
    ['assigned to RAILS_ENV (config/environments/<value>.rb is loaded)', 'RAILS_ENV={{body.v}} bin/rails db:migrate', REFUSED.shellVariable],
    ['assigned to RACK_ENV through env', 'env RACK_ENV={{body.v}} bundle exec rackup', REFUSED.shellVariable],
    ['assigned to HATCH_ENV (the environment whose commands hatch runs)', 'HATCH_ENV={{body.v}} hatch run test', REFUSED.shellVariable],
    ['assigned to RAILS_ENV by export', 'export RAILS_ENV={{body.v}}; bin/rails runner ./x.rb', REFUSED.shellVariable],
    ['given to a container as RAILS_ENV', 'docker exec -e RAILS_ENV={{body.v}} app bin/rails db:migrate', REFUSED.shellVariable],
    // kubectl exec POD COMMAND… without --: the first word after the pod that is no option is the program run.
    ['as the command a wrapper runs in kubectl exec without --', 'kubectl exec pod timeout 5 ./{{body.v}}', REFUSED.commandName],
    ['as the program kubectl exec runs without --', 'kubectl exec pod {{body.v}}', REFUSED.commandName],
    ['as the command env runs in kubectl exec with options around the pod', 'kubectl exec -it pod -c app env ./{{body.v}}', REFUSED.commandName],
    ['in the -c value of git run by kubectl exec without --', 'kubectl exec pod git -c {{body.v}} status', REFUSED.gitOption],
    ['as the command a wrapper runs in kubectl exec -f, which names no pod', 'kubectl exec -f pod.yaml timeout 5 ./{{body.v}}', REFUSED.commandName],
    ['as the command a wrapper runs in oc exec and oc rsh', 'oc rsh pod timeout 5 ./{{body.v}}', REFUSED.commandName],
    // kubectl reads options anywhere up to `--`, after the program too: a value `--kubeconfig=…` there is kubectl's.
    [
      'at the start of an argument of the program kubectl exec runs without -- (kubectl reads it as its own option)',
      'kubectl exec pod ./deploy.sh {{body.v}}; kubectl exec pod timeout 5 ./deploy.sh {{body.v}}; kubectl exec -f pod.yaml ./deploy.sh "{{body.v}}"',
      REFUSED.containerOption,
    ],
    [
      'in the kubeconfig given after the program of kubectl exec without --',
      'kubectl exec pod ./deploy.sh --kubeconfig /tmp/{{body.v}}',
      REFUSED.containerOption,
    ],
    [
      'at the start of an argument of an interpreter or shell kubectl exec runs without --',
      `oc exec pod python3 ./x.py {{body.v}}; kubectl exec pod sh -c './x "$1"' sh {{body.v}}`,
      REFUSED.containerOption,
    ],
    [
      'as the command kubectl exec runs after a -- that follows the program (kubectl drops the words before it)',
      'kubectl exec pod ./deploy.sh -- {{body.v}}',
      REFUSED.commandName,
    ],
    [
      'at the start of the pod of kubectl logs -f (--follow, which takes no value)',
      'kubectl logs -f {{body.v}}; oc logs -f {{body.v}}',
      REFUSED.containerOption,
    ],
    [
      'at the start of the image kubectl run, kubectl debug and kubectl set image run',
      'kubectl run job --image {{body.v}}; kubectl debug -it pod --image={{body.v}}; kubectl -n prod set image deployment/app app={{body.v}}',
      REFUSED.containerOption,
    ],
    [
      'in the kubeconfig of kubectl exec (its credential plugin runs on the host)',
      'kubectl exec --kubeconfig /tmp/{{body.v}} pod -- ./x',
      REFUSED.containerOption,
    ],
    ['at the start of the pod of kubectl exec, where a value could be an option', 'kubectl exec {{body.v}} -- ./deploy.sh', REFUSED.containerOption],
    ['in the kubeconfig given to kubectl before its subcommand', 'kubectl --kubeconfig /tmp/{{body.v}} get pods', REFUSED.containerOption],
    ['in the kubeconfig given to kubectl with =', 'kubectl --kubeconfig={{body.v}} exec pod -- ./x', REFUSED.containerOption],
    [
      'at the start of a word of kubectl logs, where a value could be --kubeconfig=…',
      'kubectl logs {{body.v}}; oc logs --{{body.v}} pod',
      REFUSED.containerOption,
    ],
    ['assigned to KUBECONFIG', 'KUBECONFIG={{body.v}} kubectl get pods', REFUSED.shellVariable],
    [
      "given to kubectl set env as a refused variable (the pods' programs get it, as with docker -e)",
      'kubectl set env deployment/app LD_PRELOAD={{body.v}}; kubectl set env deployment/app --env=NODE_OPTIONS={{body.v}}; kubectl -n prod set env deployment/app -e PATH={{body.v}}',
      REFUSED.shellVariable,
    ],
    ['in the directory chroot makes the root of the program it runs', 'sudo chroot /srv/roots/{{body.v}} ./deploy.sh', REFUSED.directory],
    // pip (and uv) reading a requirements file from its input: its lines may be options (--index-url) or local projects.
    ['written into a pipe to pip install -r /dev/stdin', 'echo {{body.v}} | pip install -r /dev/stdin', REFUSED.shellInput],
    ['written into a pipe to pip install -r -', 'echo {{body.v}} | pip install -r -', REFUSED.shellInput],
    ['written into a pipe to pip3 install --requirement=-', "printf '%s\\n' {{body.v}} | pip3 install --requirement=-", REFUSED.shellInput],
    ['written into a pipe to pip install -c - (constraints)', 'echo {{body.v}} | pip install -c - requests', REFUSED.shellInput],
    ['written into a pipe to python3 -m pip install -r -', 'echo {{body.v}} | python3 -m pip install -r -', REFUSED.shellInput],
    ['written into a pipe to uv pip install -r -', 'echo {{body.v}} | uv pip install -r -', REFUSED.shellInput],
    [
      'written into a pipe to pip install -Ur - (bundled) and --requir - (abbreviated)',
      'echo {{body.v}} | pip install -Ur -; echo {{body.v}} | pip install --requir -',
      REFUSED.shellInput,
    ],
    ['in a here-document pip install -r /dev/stdin reads', 'pip install -r /dev/stdin <<EOF\n{{body.v}}\nEOF', REFUSED.shellInput],
    ['in a here-string pip install -r - reads', 'pip install -r - <<< {{body.v}}', REFUSED.shellInput],
    [
      'written into a pipe to pip told by PIP_REQUIREMENT or PIP_CONSTRAINT to read its input',
      'echo {{body.v}} | PIP_REQUIREMENT=/dev/stdin pip install; echo {{body.v}} | PIP_CONSTRAINT=- pip install x',
      REFUSED.shellInput,
    ],
    [
      'assigned to PIP_REQUIREMENT and UV_CONSTRAINT (a requirements file, as -r names)',
      'PIP_REQUIREMENT={{body.v}} pip install; UV_CONSTRAINT=/tmp/{{body.v}} uv pip install x',
      REFUSED.shellVariable,
    ],
    // A variable a -c string copies a positional parameter into stands where the parameter would.
    ['as a positional parameter copied into a variable run as a command', `sh -c 'x=$1; $x' sh {{body.v}}`, REFUSED.positionalCode],
    ['as a positional parameter copied into a variable eval runs', `sh -c 'x=$1; eval "$x"' sh {{body.v}}`, REFUSED.positionalCode],
    ['as a positional parameter copied into a variable given to python3 -c', `sh -c 'x=$1; python3 -c "$x"' sh {{body.v}}`, REFUSED.positionalCode],
    [
      'as a positional parameter copied, quoted and in braces, into a variable run as a command',
      `sh -c 'x="\${1}"; \${x}' sh {{body.v}}`,
      REFUSED.positionalCode,
    ],
    ['as a positional parameter copied through two variables', `bash -c 'x=$1; y=$x; eval "$y"' bash {{body.v}}`, REFUSED.positionalCode],
    ['as a positional parameter a for loop gives its variable, run as a command', `sh -c 'for c in "$@"; do $c; done' sh {{body.v}}`, REFUSED.positionalCode],
    [
      'as a positional parameter copied into a variable by a command substitution',
      `sh -c 'x=$(printf %s "$1"); sh -c "$x"' sh {{body.v}}`,
      REFUSED.positionalCode,
    ],
    // What read, mapfile and printf -v set, and a backquoted substitution, copy a parameter too.
    [
      'as a positional parameter read, printf -v or mapfile copy into a variable run as a command',
      `sh -c 'read -r x <<<"$1"; $x' sh {{body.v}}; bash -c 'printf -v x %s "$1"; eval "$x"' bash {{body.v}}; bash -c 'mapfile -t a <<<"$1"; "\${a[@]}"' bash {{body.v}}`,
      REFUSED.positionalCode,
    ],
    [
      'as a positional parameter a here-document gives a read loop that runs it',
      `sh -c 'while read -r x; do $x; done <<EOF\n$1\nEOF' sh {{body.v}}`,
      REFUSED.positionalCode,
    ],
    ['as a positional parameter copied by a backquoted substitution', 'sh -c \'x=`printf %s "$1"`; $x\' sh {{body.v}}', REFUSED.positionalCode],
    // A -c string that runs what it reads from its input: a pipe or here-string into it is its code.
    ['written into a pipe to a -c string that reads a line and runs it', `echo {{body.v}} | sh -c 'read -r x; $x'`, REFUSED.shellInput],
    ['in a here-string given to a -c string that reads a line and evaluates it', `bash -c 'read -r x; eval "$x"' <<< {{body.v}}`, REFUSED.shellInput],
    // A variable the template assigns a token to stands where the token would, in the template and in a -c string it runs.
    [
      "in a variable the template then runs, evaluates or cd's to, itself or through a copy",
      'x={{body.v}}; eval "$x"; y={{body.v}}; $y; d=prefix-{{body.v}}; cd "/srv/$d" && make; a={{body.v}}; b="$a"; python3 -c "$b"; for f in {{body.v}}; do $f; done',
      REFUSED.copiedValue,
    ],
    [
      'in a variable of the environment a -c string runs or evaluates',
      `REF={{body.v}} sh -c 'eval "$REF"'; export D={{body.v}}; sh -c 'cd "$D" && make'; docker run -e C={{body.v}} img sh -c '$C'; X={{body.v}}; bash -c "eval $X"`,
      REFUSED.copiedValue,
    ],
    // spring (bin/spring), the Rails preloader, runs the command its next word names.
    ['as the code spring rails runner evaluates', 'spring rails runner {{body.v}}', REFUSED.interpreterProgram],
    ['as the code bin/spring rails runner evaluates', 'bin/spring rails runner \'Deploy.run("{{body.v}}")\'', REFUSED.interpreterProgram],
    ['as the code ruby bin/spring rails r evaluates', 'ruby bin/spring rails r {{body.v}}', REFUSED.interpreterProgram],
    ['as the command spring runs', 'spring {{body.v}}', REFUSED.commandName],
    ["in spring rake's command line", 'bundle exec spring rake deploy {{body.v}}', REFUSED.rakeCode],
    ['written into a pipe to spring rails console', 'echo {{body.v}} | bin/spring rails console', REFUSED.shellInput],
    // Files a container tool writes, and the directory podman --rootfs runs.
    ['in the file docker run --cidfile writes', 'docker run --cidfile /tmp/{{body.v}} img ./x', REFUSED.containerOption],
    ['in the file docker run --cidfile= writes', 'docker run --cidfile={{body.v}} img', REFUSED.containerOption],
    ['in the file podman run --pidfile writes', 'podman run --pidfile /run/{{body.v}}.pid img ./x', REFUSED.containerOption],
    ['in the directory podman run --rootfs runs, after fixed text', 'podman run --rm --rootfs /srv/roots/{{body.v}} ./deploy.sh', REFUSED.containerOption],
    ['in the directory podman create --rootfs=true runs', 'podman create --rootfs=true /srv/{{body.v}}:O ./x', REFUSED.containerOption],
    // The same options after an --entrypoint, where docker's options were read for the image alone (they were accepted).
    ['in the working directory of docker run after an entry point', 'docker run --entrypoint sh -w /tmp/{{body.v}} img ./deploy.sh', REFUSED.containerOption],
    ['in the file --cidfile= writes after an entry point', 'docker run --entrypoint sh --cidfile=/tmp/{{body.v}} img ./x', REFUSED.containerOption],
    ['in a volume given in the same word after an entry point', 'docker run --entrypoint sh -v/{{body.v}}:/x img ./x', REFUSED.containerOption],
    ['in the user of a bundle after an entry point', 'docker run --entrypoint sh -itu {{body.v}} img ./x', REFUSED.containerOption],
    ['in the shell oc rsh runs in the pod', 'oc rsh --shell {{body.v}} pod', REFUSED.containerOption],
    // An option's value named like an interpreter or shell is no program run (it was taken for one, and the real one for its script).
    ['as the program of an interpreter run after a container named like one', 'docker run --name python img python3 -c {{body.v}}', REFUSED.interpreterProgram],
    [
      'at the start of an argument of a program kubectl exec runs in a container named like a shell',
      'kubectl exec -c sh pod ./deploy.sh {{body.v}}',
      REFUSED.containerOption,
    ],
    // The options of docker, podman and nerdctl themselves that choose a program they run on the host.
    [
      'in an option of the container tool itself that chooses a program it runs on the host',
      'podman --runtime {{body.v}} run img; podman --conmon=/opt/{{body.v}} ps; podman --hooks-dir /etc/{{body.v}} run img; docker --config {{body.v}} compose up; nerdctl --cni-path=/opt/{{body.v}} run img',
      REFUSED.containerOption,
    ],
    // nsenter, systemd-run and lxc-attach: the directory, root, process, user, unit properties and variables of what they run.
    [
      'in the directory or root nsenter runs the program in, or the process whose namespaces it enters',
      'nsenter -t 1 -m --wd={{body.v}} ./deploy.sh; nsenter -t 1 -m -w/srv/{{body.v}} ./x; nsenter -t 1 -m --root /srv/{{body.v}} ./x; nsenter -t {{body.v}} -m ./x',
      REFUSED.containerOption,
    ],
    [
      "in a property of systemd-run's unit (ExecStartPre= runs a command) or its working directory",
      'systemd-run -p ExecStartPre={{body.v}} ./x; systemd-run --property=WorkingDirectory=/srv/{{body.v}} ./deploy.sh; systemd-run --working-directory {{body.v}} ./x',
      REFUSED.containerOption,
    ],
    ['in the configuration lxc-attach reads (its hooks run on the host)', 'lxc-attach -n app -P /var/lib/{{body.v}} -- ./x', REFUSED.containerOption],
    [
      'given to systemd-run -E and lxc-attach -v as a refused variable, or as the name',
      'systemd-run -E PATH={{body.v}} ./x; systemd-run --setenv=LD_PRELOAD={{body.v}} ./x; systemd-run -E {{body.v}} ./x; lxc-attach -n c -v BASH_ENV={{body.v}} -- ./x',
      REFUSED.shellVariable,
    ],
    [
      'assigned to DOCKER_CONFIG and CONTAINERS_CONF',
      'DOCKER_CONFIG={{body.v}} docker compose up; CONTAINERS_CONF=/etc/{{body.v}} podman run img',
      REFUSED.shellVariable,
    ],
    // pip's requirements from a process substitution.
    ['in a process substitution pip install -r reads as its requirements', 'pip install -r <(echo {{body.v}})', REFUSED.shellInput],
    [
      'written into a pipe to uv pip compile -, uv pip sync /dev/stdin and uv run --with-requirements - (uv reads - as its input)',
      'echo {{body.v}} | uv pip compile -; echo {{body.v}} | uv pip sync /dev/stdin; echo {{body.v}} | uv run --with-requirements - ./x.py',
      REFUSED.shellInput,
    ],
    // rails's own commands: -e chooses config/environments/<value>.rb, as RAILS_ENV does; rails test loads its files.
    ['as the environment rails server loads', 'rails server -e {{body.v}}', REFUSED.railsOption],
    ['as the environment given with = to bin/rails server', 'bin/rails server --environment={{body.v}}', REFUSED.railsOption],
    [
      'as the environment rails test, routes and credentials:edit load',
      'rails test -e {{body.v}}; rails routes -e{{body.v}}; bin/rails credentials:edit -e {{body.v}}',
      REFUSED.railsOption,
    ],
    ['as the environment spring rails server loads', 'spring rails server -e {{body.v}}', REFUSED.railsOption],
    ['at the start of a word of rails server, where a value could be -e…', 'rails server {{body.v}}', REFUSED.railsOption],
    ["in rails server's rackup file and Rack server", 'rails server -c /srv/{{body.v}}.ru; rails server -u {{body.v}}', REFUSED.railsOption],
    ['in a test file rails test loads', 'rails test test/{{body.v}}; rails t -- {{body.v}}', REFUSED.railsOption],
    // Variables that choose where programs read their configuration from, and where cd - goes.
    ['assigned to HOME (git reads ~/.gitconfig, whose core.fsmonitor runs)', 'HOME={{body.v}} git status', REFUSED.shellVariable],
    ['assigned to XDG_CONFIG_HOME', 'XDG_CONFIG_HOME=/tmp/{{body.v}} git status', REFUSED.shellVariable],
    ['assigned to PIP_CONFIG_FILE', 'PIP_CONFIG_FILE={{body.v}} pip install requests', REFUSED.shellVariable],
    ['assigned to OLDPWD, where cd - goes', 'OLDPWD={{body.v}} cd - && make', REFUSED.shellVariable],
    // sudo VAR=value COMMAND sets the variable for the command, as env does (sudoers lets a command matched by ALL set any).
    [
      'given to sudo before the command it runs',
      'sudo PATH={{body.v}} ls; sudo -u deploy HOME={{body.v}} git status; sudo -E LD_PRELOAD=/tmp/{{body.v}} ./x; sudo -- "RAILS_ENV={{body.v}}" bin/rails db:migrate',
      REFUSED.shellVariable,
    ],
    // A -c string in double quotes whose references are escaped (\$1, \$X) is the fixed text the shell it goes to reads.
    [
      'as a positional parameter a -c string in double quotes runs or gives cd, its references escaped',
      'sh -c "eval \\$1" sh {{body.v}}; sh -c "cd \\"\\$1\\" && make" sh {{body.v}}; bash -c "\\"\\$@\\"" bash {{body.v}}; sh -c "eval \\$1 $PWD" sh {{body.v}}',
      REFUSED.positionalCode,
    ],
    [
      'in a variable a -c string in double quotes or eval runs, its reference escaped',
      'X={{body.v}} bash -c "eval \\$X"; export Y={{body.v}}; sh -c "cd \\$Y && make"; export Z={{body.v}}; sh -c "eval \\$Z $PWD"; R={{body.v}}; eval "\\$R"',
      REFUSED.copiedValue,
    ],
    ['written into a pipe to a -c string in double quotes that runs what it reads', 'echo {{body.v}} | sh -c "read -r x; \\$x"', REFUSED.shellInput],
    [
      'assigned to a variable other than by NAME= (${x:=…}, ${x=…}, a[0]=, x+=, x=$(…)) that the template then runs',
      ': "${x:={{body.v}}}"; eval "$x"; : ${y=pre-{{body.v}}}; $y; a[0]={{body.v}}; eval "${a[0]}"; z=ok; z+={{body.v}}; eval "$z"; w=$(printf %s {{body.v}}); eval "$w"; u=`echo {{body.v}}`; $u',
      REFUSED.copiedValue,
    ],
    [
      'in a variable the template copies into one a -c string then runs (REF2=$REF sh -c, docker -e X="$REF")',
      `REF={{body.v}}; REF2=$REF sh -c 'eval "$REF2"'; R={{body.v}}; docker run -e X="v-$R" img sh -c 'eval "$X"'`,
      REFUSED.copiedValue,
    ],
    // The template's own positional parameters: set by set, or a function's arguments in its body.
    [
      'as a positional parameter set -- gives the template, which it then runs',
      'set -- {{body.v}}; eval "$1"; set x "{{body.v}}"; cd "$2" && make',
      REFUSED.copiedValue,
    ],
    [
      "as a function's argument, which its body runs or copies into a variable it runs",
      `f() { eval "$1"; }; f {{body.v}}; function g { "$@"; }; g {{body.v}}; h() { local x=$1; cd "$x" && make; }; h "{{body.v}}"`,
      REFUSED.copiedValue,
    ],
    [
      "as a variable's value bash evaluates where its bare name stands in arithmetic or is expanded by name",
      'n={{body.v}}; echo $((n+1)); m={{body.v}}; ((m > 1)); k={{body.v}}; let j=k+1; i={{body.v}}; echo "${a[i]}"; h={{body.v}}; echo "${!h}"; g={{body.v}}; [[ g -eq 1 ]]; f={{body.v}}; e=$f; ((e > 1))',
      REFUSED.copiedValue,
    ],
    [
      'read, mapfile or printf -v into a variable the template then runs, on the line of the token',
      'read -r x <<< {{body.v}}; $x\nprintf -v y %s "{{body.v}}"; eval "$y"\necho {{body.v}} | { read -r d; cd "$d"; make; }\nwhile read -r w; do eval "$w"; done <<< {{body.v}}\nmapfile -t a <<< {{body.v}}; "${a[@]}"',
      REFUSED.copiedValue,
    ],
    [
      'as the command pkexec, setpriv, ssh-agent, firejail and dbus-run-session run after their options',
      'pkexec {{body.v}}; pkexec --user root ./{{body.v}}; setpriv --reuid 1000 {{body.v}}; ssh-agent -t 60 {{body.v}}; firejail --net=none {{body.v}}; dbus-run-session -- {{body.v}}',
      REFUSED.commandName,
    ],
    // Found by review: container entry points' user switchers and init processes, and other wrappers.
    [
      'as the command gosu, su-exec, s6-setuidgid, tini, dumb-init, chronic, faketime, catchsegv, systemd-inhibit, cpulimit and with-contenv run',
      'setuidgid app {{body.v}}; envuidgid app ./{{body.v}}; softlimit -m 100 {{body.v}}; envdir /etc/app-env {{body.v}}; tsp {{body.v}}; gosu app {{body.v}}; su-exec app ./{{body.v}}; s6-setuidgid app {{body.v}}; tini -- {{body.v}}; tini -p SIGTERM {{body.v}}; dumb-init {{body.v}}; chronic {{body.v}}; faketime 2020-01-01 {{body.v}}; catchsegv {{body.v}}; systemd-inhibit --why=x {{body.v}}; cpulimit -l 50 -- {{body.v}}; with-contenv {{body.v}}',
      REFUSED.commandName,
    ],
    // docker compose reads its services (images, host directories mounted, privileges, commands) from the file its options name.
    [
      'in the compose file, project directory or env file docker compose and docker-compose read',
      'docker compose -f {{body.v}} up; docker compose --project-directory /srv/{{body.v}} up -d; docker compose --env-file={{body.v}} up; docker-compose -f /srv/{{body.v}}.yml up; podman compose --file {{body.v}} up',
      REFUSED.containerOption,
    ],
    [
      'at the start of a word of docker compose before its subcommand (a value could be --file=…), or in its option',
      'docker compose {{body.v}} up; docker-compose -f{{body.v}} up; docker compose -p app --{{body.v}} up',
      REFUSED.containerOption,
    ],
    [
      'as the envdir whose files set the environment of the command envdir runs',
      'envdir /srv/{{body.v}} ./deploy.sh; envdir ./env-{{body.v}} ./x',
      REFUSED.directory,
    ],
    // Found by review: a value before docker's subcommand is its subcommand or an option of its own (--config=…, whose plugins run).
    [
      'at the start of a word before the subcommand of docker, podman or nerdctl, past no option that may take it',
      'docker {{body.v}} compose up; podman {{body.v}} ps; docker -D {{body.v}} ps; nerdctl {{body.v}} images',
      REFUSED.containerOption,
    ],
    // Found by review: docker stack deploy reads a compose file too, whose services the swarm runs.
    [
      'in the compose file docker stack deploy reads (-c, --compose-file)',
      'docker stack deploy -c /srv/{{body.v}}.yml app; docker stack deploy --compose-file=/srv/{{body.v}} app; docker -H ssh://m stack up -c/srv/{{body.v}} app',
      REFUSED.containerOption,
    ],
    // Found by review: debug, the value of --log-level, was taken for a subcommand that runs a command, and compose not looked for after it.
    [
      'in the compose file after an option of docker taking a value, or in what podman-compose reads',
      'docker -l debug compose -f /srv/{{body.v}} up; docker --log-level debug compose --file=/srv/{{body.v}} up; podman-compose -f /srv/{{body.v}}.yml up; podman-compose --podman-path /usr/local/{{body.v}} up',
      REFUSED.containerOption,
    ],
    // kubectl apply, create and replace run the pods the manifests name (their images, commands, host paths, privileges).
    [
      'in the manifest kubectl apply, create or replace reads (-f, --filename, -k, --kustomize), also after fixed text',
      'kubectl apply -f {{body.v}}; kubectl apply -k /srv/{{body.v}}; kubectl apply --filename /srv/{{body.v}}.yaml; kubectl apply --kustomize={{body.v}}; kubectl -n prod create -f ./k8s/{{body.v}}; kubectl replace -f/srv/{{body.v}}; oc apply -f k8s/{{body.v}}.yaml',
      REFUSED.containerOption,
    ],
    // The flag parser reads -Rf as -R -f, and the subcommand's options before the subcommand (found by review).
    [
      "in the manifest -f or -k take last in a bundle (-Rf) or before kubectl's subcommand",
      'kubectl apply -Rf /srv/{{body.v}}; kubectl apply -Rf/srv/{{body.v}}; oc create -Rk ./k8s/{{body.v}}; kubectl -f ./k8s/{{body.v}}.yaml apply; kubectl -n prod --filename=/srv/{{body.v}} apply; oc -k /srv/{{body.v}} apply',
      REFUSED.containerOption,
    ],
    // Maven and Gradle run the plugins and build code of the project their options point them at.
    [
      'in the build file, project directory, settings or init script mvn and gradle (also ./mvnw, ./gradlew) read',
      'mvn -f {{body.v}} package; mvn --file /srv/{{body.v}}/pom.xml package; ./mvnw --file={{body.v}} package; mvn -s settings-{{body.v}}.xml deploy; gradle -p {{body.v}} build; gradle --project-dir /srv/{{body.v}} build; ./gradlew -b {{body.v}}; gradle --build-file={{body.v}}; gradle -c {{body.v}}; ./gradlew --settings-file /srv/{{body.v}} build; gradle -I /tmp/{{body.v}}.gradle build',
      REFUSED.buildCode,
    ],
    [
      'at the start of a word of mvn or gradle (a value could be -f…) or in the name of a property',
      'mvn {{body.v}}; ./gradlew build {{body.v}}; mvn -D{{body.v}} package; docker run --rm maven mvn -f {{body.v}} package',
      REFUSED.buildCode,
    ],
    // Found by review: rspec reads SPEC_OPTS as options, kubectl diff and edit run the command of these variables.
    [
      'assigned to SPEC_OPTS, KUBECTL_EXTERNAL_DIFF or KUBE_EDITOR',
      'SPEC_OPTS={{body.v}} bin/rspec; KUBECTL_EXTERNAL_DIFF={{body.v}} kubectl diff -f k8s/; KUBE_EDITOR=/srv/{{body.v}} kubectl edit deploy/app',
      REFUSED.shellVariable,
    ],
    [
      'in the command line of rspec, cucumber or rake run as ruby bin/rspec, ruby bin/cucumber, ruby bin/rake',
      'ruby bin/rspec spec/{{body.v}}; ruby bin/cucumber features/{{body.v}}; ruby bin/rspec -r ./{{body.v}}',
      REFUSED.rspecCode,
    ],
    ['in a task ruby bin/rake runs', 'ruby bin/rake {{body.v}}', REFUSED.rakeCode],
    [
      "assigned to CUCUMBER_OPTS (options cucumber's rake task passes)",
      'rake cucumber CUCUMBER_OPTS={{body.v}}; CUCUMBER_OPTS=-r{{body.v}} rake cucumber',
      REFUSED.shellVariable,
    ],
    ['in the file rspec --deprecation-out writes, also abbreviated', 'rspec --deprecation-out /tmp/{{body.v}}; rspec --dep={{body.v}}', REFUSED.rspecCode],
    // Found by review: tar runs the rmt program --rmt-command names for a remote archive.
    [
      "in the program tar's --rmt-command names, also abbreviated",
      'tar -xf backup:/x.tar --rmt-command=/srv/{{body.v}}; tar -xf backup:/x.tar --rmt /srv/{{body.v}}',
      REFUSED.tarOption,
    ],
    // Found by review: Maven (commons-cli) and Gradle read a long option's name after a single dash as well.
    [
      'in what a long option of mvn or gradle written with a single dash takes',
      'mvn -file /srv/{{body.v}}/pom.xml package; mvn -settings ./conf/{{body.v}}.xml deploy; gradle -project-dir /srv/{{body.v}} build; ./gradlew -init-script /tmp/{{body.v}}.gradle build',
      REFUSED.buildCode,
    ],
    // A property named by the value (`maven.ext.class.path=…`), or one naming a program run or where code is loaded from (found by review).
    [
      'in the name of a property given in the next word or after --define= or --system-prop=, or in the value of one naming a program or where code is loaded from',
      'mvn -D {{body.v}} package; mvn --define={{body.v}} package; gradle --system-prop={{body.v}} build; ./gradlew -D {{body.v}} build; mvn -Dexec.executable={{body.v}} exec:exec; mvn -Dexec.executable=/usr/bin/{{body.v}} exec:exec; mvn -D maven.repo.local=/srv/{{body.v}} package; mvn -Dmaven.ext.class.path={{body.v}} validate; mvn test -DargLine={{body.v}}; mvn exec:java -Dexec.mainClass={{body.v}}; gradle -Dorg.gradle.java.home=/opt/{{body.v}} build; ./gradlew --system-prop org.gradle.jvmargs={{body.v}} build; mvnDebug -f {{body.v}} package',
      REFUSED.buildCode,
    ],
    [
      'assigned to MAVEN_ARGS, MAVEN_OPTS, GRADLE_OPTS, GRADLE_USER_HOME or JAVA_HOME',
      'MAVEN_ARGS={{body.v}} mvn package; JAVA_HOME=/opt/{{body.v}} ./gradlew build; GRADLE_USER_HOME={{body.v}} gradle build',
      REFUSED.shellVariable,
    ],
    [
      'assigned to JAVA_OPTS (gradlew), MAVEN_BASEDIR, MAVEN_DEBUG_OPTS, MAVEN_CONFIG or MVNW_REPOURL',
      'JAVA_OPTS={{body.v}} ./gradlew build; MAVEN_BASEDIR=./apps/{{body.v}} mvn validate; MAVEN_DEBUG_OPTS={{body.v}} mvn package; MAVEN_CONFIG={{body.v}} ./mvnw package; MVNW_REPOURL={{body.v}} ./mvnw package',
      REFUSED.shellVariable,
    ],
    // direnv exec sources the directory's .envrc (bash); chpst -e reads an envdir (PATH, LD_PRELOAD…), -/ and -C choose the root and directory.
    [
      'in the directory direnv exec loads the .envrc of, or direnv allow trusts, and the directories chpst -e, -/ and -C take',
      'direnv exec {{body.v}} ./deploy.sh; direnv exec /srv/{{body.v}} make; direnv allow /srv/{{body.v}}; chpst -e {{body.v}} ./x; chpst -/ /srv/{{body.v}} ./x; chpst -C {{body.v}} ./x; sudo chpst -u app -e ./env/{{body.v}} ./run',
      REFUSED.directory,
    ],
    [
      'as the command direnv exec and chpst run, or the subcommand of direnv',
      'direnv exec . {{body.v}}; chpst -u app {{body.v}}; direnv {{body.v}} . ./x',
      REFUSED.commandName,
    ],
    // rspec loads the spec files and the Ruby its options name, alone and through spring as rails test and rake are.
    [
      "in rspec's command line (a spec file it loads, -r, -f, a word a value could make an option), alone, through spring or bundle exec",
      'spring rspec {{body.v}}; bin/spring rspec spec/{{body.v}}_spec.rb; rspec {{body.v}}; bundle exec rspec -r {{body.v}} spec; bin/rspec --require=./{{body.v}}; rspec -f {{body.v}} spec; rspec --req {{body.v}}; rspec -- {{body.v}}',
      REFUSED.rspecCode,
    ],
    // Variables set from a value in ways of bash's own: a read fed by a here-document on another line, getopts, a name reference, ${y:=…}.
    [
      'in a here-document a read on another line reads into a variable the template runs',
      'while read -r x; do $x; done <<EOF\n{{body.v}}\nEOF\nwhile read -r y; do\n  eval "$y"\ndone <<-END\n\t{{body.v}}\n\tEND',
      REFUSED.copiedValue,
    ],
    [
      'in a positional parameter or argument getopts reads into OPTARG, which the template runs',
      'set -- -a {{body.v}}; getopts a: o; eval "$OPTARG"\nset -- {{body.v}}; while getopts a: o; do $OPTARG; done\ngetopts a: o -a {{body.v}}; $OPTARG\nf() { getopts a: o; eval "$OPTARG"; }; f -a {{body.v}}',
      REFUSED.copiedValue,
    ],
    [
      'as a positional parameter a -c string reads with getopts and runs',
      `sh -c 'getopts a: o; eval "$OPTARG"' sh -a {{body.v}}; sh -c ': "\${y:=$1}"; eval "$y"' sh {{body.v}}`,
      REFUSED.positionalCode,
    ],
    [
      'in a variable a name reference (declare -n, typeset -n, local -n) names, or assigned through one, which the template runs',
      'x={{body.v}}; declare -n ref=x; $ref; a={{body.v}}; typeset -n r=a; eval "$r"; declare -n q=b; b={{body.v}}; $q; declare -n p=c; p={{body.v}}; eval "$c"; f() { local -n l=d; $l; }; d={{body.v}}; f',
      REFUSED.copiedValue,
    ],
    [
      'in a variable copied by an assignment of a parameter expansion (${y:=$x}), which the template runs',
      'x={{body.v}}; : "${y:=$x}"; $y; v={{body.v}}; : ${w:=pre-$v}; eval "$w"',
      REFUSED.copiedValue,
    ],
    // Found by review: REPLY and MAPFILE (read and mapfile without a name), readarray (read as read before), y+=$x, ${!ref}.
    ['in what read without a name sets REPLY to, which the template runs', 'read -r <<< {{body.v}}; $REPLY', REFUSED.copiedValue],
    [
      'in a here-document read without a name reads into REPLY, mapfile into MAPFILE or readarray into an array, which the template runs',
      'while read -r; do eval "$REPLY"; done <<EOF\n{{body.v}}\nEOF\nmapfile -t <<EOF\n{{body.v}}\nEOF\n"${MAPFILE[@]}"\nreadarray -t a <<EOF\n{{body.v}}\nEOF\n"${a[@]}"',
      REFUSED.copiedValue,
    ],
    [
      'in a variable appended to another (y+=$x) or reached by an indirect expansion (${!ref}), which the template runs',
      'x={{body.v}}; y+=$x; $y; v={{body.v}}; w=pre; w+=$v; eval "$w"; r={{body.v}}; n=r; eval "${!n}"',
      REFUSED.copiedValue,
    ],
    [
      'in a variable a name reference declared without one is later given (declare -n ref; ref=x), which the template runs',
      'x={{body.v}}; declare -n ref; ref=x; $ref; y={{body.v}}; f() { local -n r; r=y; eval "$r"; }; f',
      REFUSED.copiedValue,
    ],
    // docker exec's container: a value at its start could be an option (--user=root, --workdir=…), the next word the container.
    [
      'at the start of the container docker, podman or nerdctl exec (also docker compose exec) runs the program in',
      'docker exec {{body.v}} app ./x; docker exec -it {{body.v}} ./x; nerdctl exec {{body.v}} ./x; docker compose exec {{body.v}} ./x',
      REFUSED.containerOption,
    ],
    // GNU tar runs what --to-command, -I, --checkpoint-action… take, and reads options among its operands.
    [
      "in tar's command line where the value chooses a command it runs, a remote or standard-input archive, or an option",
      'tar --to-command={{body.v}} -xf a.tar; tar -I {{body.v}} -xf a.tar; tar --use-compress-program {{body.v}} -xf a.tar; tar --checkpoint-action=exec={{body.v}} -cf a.tar .; tar --to-com={{body.v}} -xf a.tar; tar -xf {{body.v}}; tar -czf backup-{{body.v}}.tgz .; tar -xvf{{body.v}}; tar xzf {{body.v}}; tar -xf a.tar {{body.v}}; tar -cf a.tar {{body.v}}',
      REFUSED.tarOption,
    ],
    ['as the directory tar -C extracts into', 'tar -C {{body.v}} -xf a.tar; tar -xzf a.tgz --directory=/srv/{{body.v}}', REFUSED.directory],
    ['assigned to TAR_OPTIONS or TAPE', 'TAR_OPTIONS={{body.v}} tar -xf a.tar; TAPE={{body.v}} tar -x', REFUSED.shellVariable],
    [
      'written into a pipe or here-document to kubectl apply -f - or docker compose -f -, which read the manifest or compose file from it',
      'echo {{body.v}} | kubectl apply -f -; printf %s {{body.v}} | kubectl create --filename=-\nkubectl apply -f - <<EOF\nimage: {{body.v}}\nEOF\necho {{body.v}} | docker compose -f - up; echo {{body.v}} | docker-compose --file=- up',
      REFUSED.shellInput,
    ],
    // Found by review: cucumber (also through spring) loads the Ruby of its features' directory and what -r names.
    [
      'in a feature file or directory cucumber loads the Ruby beside, or what its -r, -f, -o or -j take, also through spring',
      'spring cucumber features/{{body.v}}; cucumber features/{{body.v}}.feature; bundle exec cucumber -r ./{{body.v}}; cucumber --req=features/{{body.v}}; cucumber -f {{body.v}}; cucumber {{body.v}}; bin/spring cucumber -- {{body.v}}',
      REFUSED.rspecCode,
    ],
    // Found by review: a patch changes the pods as a manifest does, and a value anywhere in its JSON can add a field.
    [
      "in the patch kubectl patch applies (-p, --patch, --patch-file), kubectl run's --overrides or kubectl debug's --custom, anywhere in it",
      `kubectl patch deployment app --patch={{body.v}}; kubectl patch deployment app -p '{"spec":{"replicas":{{body.n}}}}'; oc patch dc/app --type merge -p '{"metadata":{"annotations":{"ref":"{{body.v}}"}}}'; kubectl patch deployment app --patch-file /srv/{{body.v}}.yaml; kubectl run job --image=busybox --overrides='{"spec":{"nodeName":"{{body.v}}"}}'; kubectl debug node/n -it --image=busybox --custom=/srv/{{body.v}}.json`,
      REFUSED.containerOption,
    ],
    // Found by review: xargs adds what it reads where these programs read options or load files (make's already was).
    [
      'in what xargs gives tar, mvn, gradle, rake, rspec, cucumber, kubectl or docker compose where a value could be an option or a file loaded',
      'echo {{body.v}} | xargs tar -xf ./a.tar; echo {{body.v}} | xargs mvn; echo {{body.v}} | xargs ./gradlew build; echo {{body.v}} | xargs rake; echo {{body.v}} | xargs rspec; echo {{body.v}} | xargs cucumber; echo {{body.v}} | xargs kubectl apply -f; echo {{body.v}} | xargs kubectl exec pod ./deploy.sh; echo {{body.v}} | xargs docker compose -f; echo {{body.v}} | xargs -I{} tar -xf ./a.tar {}; echo {{body.v}} | xargs -I{} mvn {}; echo {{body.v}} | xargs -I{} rspec spec/{}',
      REFUSED.shellInput,
    ],
    // Found by review: a process substitution is a file, whose contents the value chooses.
    [
      'in a process substitution given as the compose file, the manifest, or a file a build tool or make reads as code',
      'docker compose -f <(echo {{body.v}}) up; docker compose --env-file <(printf %s {{body.v}}) up; kubectl apply -f <(echo {{body.v}}); make -f <(echo {{body.v}}); mvn -s <(echo {{body.v}}) package; gradle -I <(echo {{body.v}}) build; rspec -r <(echo {{body.v}})',
      REFUSED.shellInput,
    ],
    [
      'in a here-document or pipe to docker stack deploy -c -',
      'docker stack deploy -c - app <<EOF\nservices: {{body.v}}\nEOF\necho {{body.v}} | docker stack deploy --compose-file=/dev/stdin app',
      REFUSED.shellInput,
    ],
    [
      'in a here-document to kubectl apply -Rf - or to kubectl -f - before its subcommand',
      'kubectl apply -Rf - <<EOF\nimage: {{body.v}}\nEOF\nkubectl -f - apply <<EOF\nimage: {{body.v}}\nEOF\necho {{body.v}} | kubectl apply -Rf=-',
      REFUSED.shellInput,
    ],
    [
      'assigned to COMPOSE_FILE or COMPOSE_ENV_FILES',
      'COMPOSE_FILE={{body.v}} docker compose up; COMPOSE_ENV_FILES=/srv/{{body.v}} docker compose up',
      REFUSED.shellVariable,
    ],
  ];
  for (const [label, template, reason] of refused) {
    it(`refuses a token ${label}`, () => {
      const found = places(template);
      expect(found).to.not.be.empty;
      expect(found).to.deep.equal(found.map(() => `refused: ${reason}`));
    });
  }

  const accepted: Array<[string, string]> = [
    [
      'arguments of commands run after cd to a fixed directory, and cd run by no command',
      'cd /srv/app && ./deploy.sh {{body.v}}; cd /srv; make deploy-{{body.v}}; popd; echo cd {{body.v}}',
    ],
    [
      'a directory chosen among fixed ones, and arguments of a program run in a fixed root',
      'case {{body.v}} in app) cd /srv/app;; api) cd /srv/api;; esac; chroot /srv/root ./deploy.sh {{body.v}}',
    ],
    [
      'variables of the environment of names that choose no code',
      'NODE_ENV={{body.v}} node app.js; DEPLOY_ENV={{body.v}} bin/rails runner ./x.rb; RAILS_ENV=production REF={{body.v}} bin/rails db:seed',
    ],
    [
      'arguments of a script kubectl exec runs, with or without --, and the values of its options that choose no code',
      'kubectl exec pod -- ./deploy.sh {{body.v}}; kubectl exec -n {{body.v}} pod -c app -- ./deploy.sh; kubectl exec pod -- timeout 5 ./deploy.sh {{body.v}}; kubectl exec pod-{{body.v}} -- ./x; kubectl exec -f pod.yaml -- ./deploy.sh {{body.v}}; kubectl exec pod ./deploy.sh ref-{{body.v}} -c {{body.v}}; kubectl exec pod ./x -- ./deploy.sh {{body.v}}; kubectl logs pod --tail {{body.v}}; kubectl -n {{body.v}} logs pod-{{body.v}} --namespace={{body.v}} -c{{body.v}}; kubectl rollout restart deployment/{{body.v}}',
    ],
    [
      'pip and uv reading requirements from files while a pipe writes to them, and values given to pip as data',
      'echo {{body.v}} | PIP_REQUIREMENT=requirements.txt pip install; echo {{body.v}} | pip install -r requirements.txt; echo {{body.v}} | uv pip install -r reqs.txt -c constraints.txt; pip install -r r.txt --target ./vendor/{{body.v}}; echo {{body.v}} | uv pip compile requirements.in; echo {{body.v}} | uv run ./x.py -',
    ],
    [
      'positional parameters a -c string copies into variables it uses as data',
      `sh -c 'x=$1; echo "$x"' sh {{body.v}}; sh -c 'ref="$1"; git push origin -- "$ref"' sh {{body.v}}; bash -c 'a=$1 b=$2; ./deploy "$a" "$b"' bash {{body.v}} {{body.v}}; sh -c 'x=$1; echo "\${#x} $xy \${x:-none}"' sh {{body.v}}; sh -c 'for f in "$@"; do ./x "$f"; done' sh {{body.v}}; sh -c 'x=fixed; $x "$1"' sh {{body.v}}`,
    ],
    [
      'variables the template assigns a token to and uses as data, also in a -c string',
      `REF={{body.v}}; git fetch origin -- "$REF"; x={{body.v}}; echo "$x" >> log; for f in {{body.v}}; do ./lint "$f"; done; DEPLOY_REF={{body.v}} sh -c './deploy.sh "$DEPLOY_REF"'; docker run -e REF={{body.v}} --entrypoint sh img -c './deploy.sh "$REF"'; REF={{body.v}} npm explore foo -- './x "$REF"'; x={{body.v}}; echo '$x' | sh`,
    ],
    [
      'what a -c string reads from its input or its parameters and uses as data',
      `sh -c 'read -r b; ./deploy.sh "$b"' <<EOF\n{{body.v}}\nEOF\nsh -c 'read -r line; ./deploy "$line" "$1"' sh {{body.v}}; sh -c 'x=\`date\`; ./x "$x" "$1"' sh {{body.v}}; echo {{body.v}} | sh -c 'while read -r f; do ./x "$f"; done'`,
    ],
    [
      'arguments after the code or file spring rails runner runs, and of spring commands that run none',
      'spring rails runner ./script/deploy.rb {{body.v}}; bin/spring rails generate model {{body.v}}; spring rake deploy REF={{body.v}}; spring stop; echo {{body.v}}',
    ],
    [
      'variables of names of your own given to systemd-run and lxc-attach, names, and arguments of the program they run',
      'systemd-run -E REF={{body.v}} --unit deploy-{{body.v}} -p CPUQuota=50% ./deploy.sh {{body.v}}; nsenter -t 1 -m -- ./x {{body.v}}; lxc-attach -n {{body.v}} --set-var REF={{body.v}} -- ./x {{body.v}}',
    ],
    [
      "values of the container tool's own options that choose nothing it runs, and fixed ones that do",
      'docker --context {{body.v}} ps; docker --config /etc/docker run --rm img ./deploy.sh {{body.v}}; podman --root /var/lib/x run --rm img ./x {{body.v}}',
    ],
    [
      'values of container options that write no file of the value and choose nothing run, and arguments after a --rootfs directory',
      'docker run --name job-{{body.v}} img ./x; podman run --rootfs /srv/roots/app ./deploy.sh {{body.v}}; podman run --rootfs=false img:{{body.v}} ./x',
    ],
    [
      'values of docker options that choose nothing run after an entry point, options named like a shell, and arguments of what oc rsh runs (it reads no option after the pod)',
      'docker run --entrypoint sh --name {{body.v}} -e REF={{body.v}} -w /srv img ./deploy.sh {{body.v}}; oc rsh --shell /bin/bash pod ./x {{body.v}}; oc rsh pod ./x {{body.v}} -c {{body.v}}; docker run --name sh img ./x {{body.v}}',
    ],
    [
      "rails's own commands' data: a port, a test's name and line, a generator's operands and the pattern rails routes lists",
      'rails server -b 0.0.0.0 -p {{body.v}}; rails test -n {{body.v}} test/models; rails test test/x_test.rb:{{body.v}}; rails generate model {{body.v}}; bin/rails routes --expanded -g {{body.v}}; bin/rails routes --grep={{body.v}}',
    ],
    [
      'variables of names that only start like those refused, also given to sudo, and arguments named like variables',
      'HOMEPAGE={{body.v}} ./x; PIP_CONFIG={{body.v}} ./y; sudo -u deploy REF={{body.v}} HOME=/srv/app ./deploy.sh {{body.v}}; sudo ./deploy.sh PATH={{body.v}}',
    ],
    [
      "operands of kubectl's subcommands that run no command after its --, the pod of kubectl logs -f after fixed text, an image's tag, and a variable of your own given to kubectl set env",
      'kubectl set env deployment/app REF={{body.v}}; kubectl set image deployment/app app=registry/app:{{body.v}}; kubectl set selector svc/app app={{body.v}}; kubectl get pods -l app={{body.v}}; kubectl get pods -- {{body.v}}; kubectl top pod -- {{body.v}}; kubectl logs -f deploy/{{body.v}}; kubectl run job --image=registry.example.com/app:{{body.v}} -- ./x {{body.v}}',
    ],
    [
      'escaped references to a variable holding a value (the text $REF, no expansion), and a -c string in double quotes that uses its parameters as data',
      'REF={{body.v}}; echo "\\$REF is $REF"; awk "{ print \\$REF }" log; sh -c "./deploy.sh \\"\\$1\\"" sh {{body.v}}; X={{body.v}} sh -c "./deploy.sh \\"\\$X\\""',
    ],
    [
      'variables assigned a value other than by NAME= and copied into a -c string, used as data',
      `: "\${x:={{body.v}}}"; ./deploy.sh "$x"; a[0]={{body.v}}; ./deploy.sh "\${a[0]}"; w=$(git rev-parse {{body.v}}); ./deploy.sh "$w"; ./deploy.sh "\${REF:-{{body.v}}}"; R={{body.v}}; X="v-$R" sh -c './deploy.sh "$X"'`,
    ],
    [
      "a function's arguments and the template's positional parameters used as data, and set's options",
      `deploy() { ./deploy.sh "$1"; }; deploy {{body.v}}; set -- {{body.v}}; ./deploy.sh "$@"; set -euo pipefail; git fetch origin -- {{body.v}}; f() { awk "{ print \\$1 }" "$1"; sh -c 'eval "$1"' sh fixed; }; f {{body.v}}`,
    ],
    [
      "a variable's name standing bare where nothing evaluates it, its length, and arithmetic on other names",
      `x={{body.v}}; echo x "\${#x}"; ./x.sh "$x"; echo $((1+2)); i=0; while (( i < 3 )); do ./y "$x"; i=$((i+1)); done; m=$(expr "$x" + 1); ./z "$m"`,
    ],
    [
      'what read or printf -v sets from a token used as data, and a read from a file on the line of a token',
      `read -r x <<< {{body.v}}; ./deploy.sh "$x"; printf -v y %s {{body.v}}; echo "$y" >> log\nread -r host < hostfile; ./deploy.sh {{body.v}}; ssh "$host" uptime`,
    ],
    [
      'arguments of the command pkexec, setpriv, ssh-agent and firejail run',
      'pkexec --user deploy ./deploy.sh {{body.v}}; setpriv --reuid 1000 ./x {{body.v}}; ssh-agent ./x {{body.v}}; firejail --net=none ./x {{body.v}}; gosu app ./deploy.sh {{body.v}}; tini -- ./x {{body.v}}; setuidgid app ./x {{body.v}}; envdir /etc/app-env ./x {{body.v}}; faketime 2020-01-01 ./x {{body.v}}',
    ],
    [
      "values of docker compose's options that choose no file, and arguments of its subcommands",
      'docker compose -p job-{{body.v}} --profile {{body.v}} up; docker compose -f compose.yml up -d {{body.v}}; docker compose logs -f {{body.v}}; docker-compose -f x.yml run --rm web ./deploy.sh {{body.v}}; docker compose exec web ./x {{body.v}}; docker logs compose -f {{body.v}}; docker stack deploy -c stack.yml app-{{body.v}}; docker stack rm app-{{body.v}}; docker -H {{body.v}} ps; docker --context {{body.v}} ps; echo {{body.v}} | docker stack deploy -c stack.yml app; docker compose -p <(echo {{body.v}}) up; kubectl delete -f <(echo {{body.v}}); diff <(echo {{body.v}}) ./expected; echo {{body.v}} | xargs tar -xf ./a.tar --; echo {{body.v}} | xargs -I{} tar -czf /backups/{}.tgz -C /srv/app .; echo {{body.v}} | xargs -I{} rspec spec/x_spec.rb:{}; echo {{body.v}} | xargs -I{} mvn deploy -Dref={}; echo {{body.v}} | xargs docker compose logs; echo {{body.v}} | xargs kubectl exec pod -- ./deploy.sh; docker --debug inspect compose {{body.v}}; podman-compose -p job-{{body.v}} up',
    ],
    [
      'values of kubectl apply options that choose no manifest, fixed manifests, and the manifests of subcommands that run nothing',
      'kubectl apply -f k8s/ --prune -l app={{body.v}}; kubectl apply -n {{body.v}} -f k8s/app.yaml; kubectl delete -f ./k8s/{{body.v}}.yaml; kubectl create deployment app-{{body.v}} --image=registry/app:{{body.v}}; kubectl -n {{body.v}} apply -Rf k8s/; kubectl rollout restart deployment/{{body.v}}; kubectl patch deployment app-{{body.v}} --patch-file ./k8s/patch.yaml',
    ],
    [
      'properties of names of your own given to mvn and gradle, the values of their options that choose no build, and goals and tasks after fixed text',
      'mvn -f pom.xml deploy -Dref={{body.v}}; ./gradlew deploy -Pref={{body.v}}; mvn -pl {{body.v}} -rf :{{body.v}} -T {{body.v}} package; gradle test --tests {{body.v}} -x {{body.v}}; mvn release:prepare-{{body.v}}; ./gradlew --console={{body.v}} build; mvn test -Dtest={{body.v}}; mvn -D ref={{body.v}} deploy; mvn --define=ref={{body.v}} deploy; gradle --system-prop ref={{body.v}} build; mvn exec:exec -Dexec.args={{body.v}}; ./gradlew bootRun --args={{body.v}}; ./gradlew :app:run --args "--ref={{body.v}}"; mvn -projects {{body.v}} package',
    ],
    [
      'arguments of the command direnv exec and chpst run in fixed directories, and of direnv subcommands that run none',
      'direnv exec /srv/app ./deploy.sh {{body.v}}; chpst -u app -e /etc/sv/app/env ./x {{body.v}}; direnv status {{body.v}}',
    ],
    [
      'a line or example of a fixed spec file rspec runs (also through spring), an example name, a tag, a seed, and a variable of your own',
      'spring rspec spec/deploy_spec.rb:{{body.v}}; rspec spec/x_spec.rb[{{body.v}}]; rspec -e {{body.v}} spec/x_spec.rb; rspec --tag {{body.v}} --seed {{body.v}}; REF={{body.v}} bin/rspec spec/deploy_spec.rb; spring cucumber features/deploy.feature:{{body.v}}; cucumber --tags @{{body.v}} -n {{body.v}} -p {{body.v}}; ruby bin/rspec spec/x_spec.rb:{{body.v}}; ruby -w bin/rspec -e {{body.v}}; ruby bin/rake deploy REF={{body.v}}',
    ],
    [
      'what a read fed by a here-document, getopts, a name reference or ${y:=…} set from a value, used as data',
      'while read -r x; do ./deploy.sh "$x"; done <<EOF\n{{body.v}}\nEOF\nset -- -a {{body.v}}; getopts a: o; ./deploy.sh "$OPTARG"\nx={{body.v}}; declare -n ref=x; ./deploy.sh "$ref"; : "${y:=$x}"; ./deploy.sh "$y"\nread -r h < hostfile; $h; cat > notes <<EOF\n{{body.v}}\nEOF',
    ],
    [
      'what read sets REPLY to, readarray an array, y+=$x and ${!ref} from a value, used as data',
      'read -r <<< {{body.v}}; ./deploy.sh "$REPLY"\nreadarray -t a <<EOF\n{{body.v}}\nEOF\n./deploy.sh "${a[@]}"\nx={{body.v}}; y+=$x; ./deploy.sh "$y"; n=x; ./deploy.sh "${!n}"; declare -n ref; ref=x; ./deploy.sh "$ref"',
    ],
    [
      "tar's local archives after fixed text holding a /, its operands after -- or after fixed text, and the values of its data options",
      'tar -xf /srv/{{body.v}}.tar; tar -czf /backups/{{body.v}}.tgz .; tar xzf ./{{body.v}}.tgz; tar -xf a.tar -- {{body.v}}; tar -xf a.tar ./{{body.v}}; tar -xf a.tar --exclude {{body.v}} --strip-components {{body.v}}; tar -xf a.tar --transform=s/x/{{body.v}}/',
    ],
    [
      'a pipe into kubectl apply and docker compose that read fixed manifests and compose files',
      'echo {{body.v}} | kubectl apply -f k8s/; echo {{body.v}} | docker compose -f compose.yml up; echo {{body.v}} | kubectl logs -f pod',
    ],
  ];
  for (const [label, template] of accepted) {
    it(`accepts ${label}`, () => {
      const found = places(template);
      expect(found).to.not.be.empty;
      expect(found.every((p) => !p.startsWith('refused'))).to.equal(true, found.join('\n'));
    });
  }

  it('follows a chain of hundreds of variables copying a value, and finds the one refused among hundreds, in linear time', () => {
    // Marking the text again for each copy found took seconds for such a chain (2.5 s for 400), and finding the refused
    // variable scanned the template once for each of them.
    const chain = `v0={{body.v}}\n${Array.from({ length: 500 }, (_, i) => `v${i + 1}=$v${i}`).join('\n')}`;
    const many = Array.from({ length: 300 }, (_, i) => `v${i}={{body.v}}; ./deploy.sh "$v${i}"`).join('\n');
    const start = performance.now();
    expect(places(`${chain}\n./deploy.sh "$v500"`).every((p) => !p.startsWith('refused'))).to.equal(true);
    expect(places(`${chain}\neval "$v500"`)).to.deep.equal([`refused: ${REFUSED.copiedValue}`]);
    expect(places(`${many}\neval "$v7"`).filter((p) => p.startsWith('refused'))).to.deep.equal([`refused: ${REFUSED.copiedValue}`]);
    expect(performance.now() - start).to.be.below(1000);
  });

  it('bounds the scans that tell which of hundreds of variables reach a refused place, erring toward refusing', () => {
    // Each variable copies the one before and a token: all of them reach eval, and telling each apart took a scan for each.
    const template = `v0={{body.v}}\n${Array.from({ length: 600 }, (_, i) => `v${i + 1}={{body.v}}$v${i}`).join('\n')}\neval "$v600"`;
    const start = performance.now();
    const found = places(template);
    expect(performance.now() - start).to.be.below(1000);
    expect(found).to.have.length(601);
    expect(found.every((p) => p === `refused: ${REFUSED.copiedValue}`)).to.equal(true);
  });
});
