import { expect } from 'chai';
import { matchTriggers } from '../../../../src/domain/triggers/match-triggers.js';
import { validateTriggers } from '../../../../src/domain/triggers/validate-triggers.js';
import { triggerCatalog } from '../../../../src/container/trigger-catalog.js';
import { UNCONVERTIBLE_VALUES } from '../../../support/hostile-values.js';

const FILE = 'config/TRIGGERS.json';
const valid = (overrides: Record<string, unknown> = {}) => ({
  name: 'deploy',
  watch_path: '/webhook',
  enabled: true,
  actions: [{ type: 'command', command: 'make' }],
  ...overrides,
});
const problems = (raw: unknown) => validateTriggers(raw, FILE, triggerCatalog()).problems;

describe('validateTriggers', () => {
  it('takes `concurrency` as a whole number from 1 to 100 and leaves it out when absent', () => {
    const { triggers, problems: found } = validateTriggers(
      [valid({ name: 'one', concurrency: 1 }), valid({ name: 'many', concurrency: 100 }), valid({ name: 'free' })],
      FILE,
      triggerCatalog(),
    );
    expect(found).to.deep.equal([]);
    expect(triggers.map((trigger) => trigger.concurrency)).to.deep.equal([1, 100, undefined]);
    expect(Object.hasOwn(triggers[2], 'concurrency')).to.equal(false);
  });

  it('names a concurrency that is no whole number from 1 to 100', () => {
    for (const bad of [0, -1, 1.5, 101, '2', null, true]) {
      expect(problems([valid({ concurrency: bad })]), JSON.stringify(bad)).to.deep.equal([
        `${FILE}: trigger #0 "deploy": concurrency: a whole number from 1 to 100 (runs of this trigger at once), found ${JSON.stringify(bad)}`,
      ]);
    }
  });

  it('refuses a webhook header the HTTP client sets or that frames the message, and __proto__ or constructor, naming file, trigger and header', () => {
    const transport =
      'is set by the HTTP client or frames the message, so a webhook action may not set it (content-length, transfer-encoding, connection, keep-alive, upgrade, te, trailer, expect, proxy-*)';
    for (const header of [
      'Transfer-Encoding',
      'Content-Length',
      'connection',
      'Keep-Alive',
      'Upgrade',
      'TE',
      'Trailer',
      'Expect',
      'Proxy-Authorization',
      'proxy-connection',
    ]) {
      expect(problems([valid({ actions: [{ type: 'webhook', url: 'https://x', headers: { [header]: 'chunked' } }] })]), header).to.deep.equal([
        `${FILE}: trigger #0 "deploy": actions[0].headers.${header}: ${transport}`,
      ]);
    }
    // A Host given is kept by the HTTP client: a virtual host reached by address.
    expect(problems([valid({ actions: [{ type: 'webhook', url: 'https://10.0.0.7', headers: { Host: 'vhost.example' } }] })])).to.deep.equal([]);
    const raw = JSON.parse(
      '[{"name":"deploy","watch_path":"/webhook","enabled":true,"actions":[{"type":"webhook","url":"https://x","headers":{"__proto__":"a","Constructor":"b"}}]}]',
    );
    expect(problems(raw)).to.deep.equal([
      `${FILE}: trigger #0 "deploy": actions[0].headers.__proto__: is no header name an action may use (__proto__ and constructor would be lost on the way)`,
      `${FILE}: trigger #0 "deploy": actions[0].headers.Constructor: is no header name an action may use (__proto__ and constructor would be lost on the way)`,
    ]);
    // What an action sets: its own and the usual ones, user-agent and content-type included.
    const headers = { Authorization: 'Bearer t', 'User-Agent': 'me', 'Content-Type': 'application/json', 'X-Proxy': 'p', 'Accept-Encoding': 'identity' };
    expect(problems([valid({ actions: [{ type: 'webhook', url: 'https://x', headers }] })])).to.deep.equal([]);
  });

  it('refuses two webhook header names that differ only in case, naming both', () => {
    const headers = { 'User-Agent': 'me', 'user-agent': 'you', Authorization: 'a', 'X-Team': 't', AUTHORIZATION: 'b' };
    expect(problems([valid({ actions: [{ type: 'webhook', url: 'https://x', headers }] })])).to.deep.equal([
      `${FILE}: trigger #0 "deploy": actions[0].headers.user-agent: is the same header as headers.User-Agent (header names ignore case): give it once`,
      `${FILE}: trigger #0 "deploy": actions[0].headers.AUTHORIZATION: is the same header as headers.Authorization (header names ignore case): give it once`,
    ]);
  });

  it('says a concurrency past the double range (1e400) is not a finite whole number, not that it is null', () => {
    expect(
      problems(JSON.parse('[{"name":"deploy","watch_path":"/webhook","enabled":true,"actions":[{"type":"command","command":"make"}],"concurrency":1e400}]')),
    ).to.deep.equal([
      `${FILE}: trigger #0 "deploy": concurrency: a whole number from 1 to 100 (runs of this trigger at once), found a number too large to be a finite whole number`,
    ]);
    expect(problems([valid({ concurrency: Number.NEGATIVE_INFINITY })])[0]).to.match(/found a number too large to be a finite whole number$/);
  });

  it('accepts every action type with its optional fields, and applies defaults', () => {
    const { triggers, problems: found } = validateTriggers(
      [
        valid({
          actions: [
            { type: 'agent', job: 'Review {{body}}', llm_provider: 'anthropic', llm_model: 'claude' },
            { type: 'command', command: 'echo {{query.x}}', timeout: 5, retries: 1 },
            { type: 'webhook', url: 'https://example.com/h' },
            { type: 'webhook', url: 'http://127.0.0.1:9/h', method: 'GET', headers: { 'X-Token': 't' }, vars: { a: 1 } },
          ],
        }),
      ],
      FILE,
      triggerCatalog(),
    );
    expect(found).to.deep.equal([]);
    expect(triggers[0].actions).to.deep.equal([
      { type: 'agent', job: 'Review {{body}}', llmProvider: 'anthropic', llmModel: 'claude' },
      { type: 'command', command: 'echo {{query.x}}', timeoutSeconds: 5, retries: 1 },
      { type: 'webhook', url: 'https://example.com/h', method: 'POST', headers: {}, vars: {} },
      { type: 'webhook', url: 'http://127.0.0.1:9/h', method: 'GET', headers: { 'X-Token': 't' }, vars: { a: 1 } },
    ]);
  });

  it('needs an array', () => {
    expect(problems({ name: 'x' })).to.deep.equal([`${FILE}: must be a JSON array of triggers, found an object`]);
  });

  describe('a name with a control or invisible character', () => {
    const RULE = 'a name may hold no control character (line breaks and tabs included) and no invisible one (bidirectional controls, zero-width characters)';
    for (const [label, name, code] of [
      ['an escape sequence (OSC 52, a screen clear)', 'ok\u001b]52;c;cHduZWQ=\u0007\u001b[2J', '001B'],
      ['a line feed', 'a\nFAKE', '000A'],
      ['a tab', 'a\tb', '0009'],
      ['DEL', 'a\u007f', '007F'],
      ['a C1 control (CSI)', 'a\u009b2J', '009B'],
      ['a bidirectional override', 'evil\u202egpj', '202E'],
      ['a bidirectional isolate', 'a\u2066b', '2066'],
      ['a zero-width space', 'de\u200bploy', '200B'],
      ['a byte-order mark', '\ufeffdeploy', 'FEFF'],
      ['a line separator', 'a\u2028b', '2028'],
    ] as const) {
      it(`refuses ${label}, naming file, entry and field`, () => {
        expect(problems([valid({ name })])).to.deep.equal([`${FILE}: trigger #0 "${name}": name: holds U+${code}; ${RULE}`]);
      });
    }
    it('refuses a lone surrogate (a \\ud800 escape), which no database keeps, and takes a whole pair', () => {
      for (const [name, code] of [
        ['lone\ud800x', 'D800'],
        ['x\udc00', 'DC00'],
      ] as const)
        expect(problems([valid({ name })]), code).to.deep.equal([
          `${FILE}: trigger #0 "${name}": name: holds U+${code}, half of a surrogate pair without its other half (a \\u escape in the file): no character, and the database cannot store it; write the character itself`,
        ]);
      expect(problems([valid({ name: JSON.parse('"ok \\ud83c\\udf89"') })])).to.deep.equal([]);
    });
    it('accepts letters, spaces, punctuation and emoji of any script', () => {
      expect(problems([valid({ name: 'Déploiement — main 🎉 (نشر)' })])).to.deep.equal([]);
    });
    it('accepts the joiners emoji sequences and Persian spelling need (U+200D, U+200C)', () => {
      for (const name of ['family 👨\u200d👩\u200d👧', 'pride 🏳️\u200d🌈', 'ثبت\u200cنام']) expect(problems([valid({ name })]), name).to.deep.equal([]);
    });
  });

  const cases: Array<[string, unknown, string]> = [
    ['a trigger that is not an object', ['x'], `${FILE}: trigger #0: must be an object, found the string "x"`],
    ['a missing name', [valid({ name: undefined })], `${FILE}: trigger #0: name: required, a non-empty string`],
    ['an empty name', [valid({ name: ' ' })], `${FILE}: trigger #0: name: must be a non-empty string, found the string " "`],
    ['a duplicate name', [valid(), valid()], `${FILE}: trigger #1 "deploy": name: duplicate of trigger #0`],
    ['a name longer than its records keep', [valid({ name: 'd'.repeat(201) })], `${FILE}: trigger #0 "${'d'.repeat(200)}…": name: at most 200 characters`],
    [
      'a watch_path without a slash',
      [valid({ watch_path: 'webhook' })],
      `${FILE}: trigger #0 "deploy": watch_path: must be a path starting with /, found the string "webhook"`,
    ],
    ['a watch_path with /api', [valid({ watch_path: '/api/webhook' })], `${FILE}: trigger #0 "deploy": watch_path: write it without the /api prefix: /webhook`],
    [
      'a watch_path that is no endpoint',
      [valid({ watch_path: '/hooks' })],
      `${FILE}: trigger #0 "deploy": watch_path: /hooks is not an endpoint; one of ${triggerCatalog().watchPaths.join(', ')}`,
    ],
    [
      'a watch_path on the public endpoint (anyone could fire it)',
      [valid({ watch_path: '/ping' })],
      `${FILE}: trigger #0 "deploy": watch_path: /ping is public (no authentication): a trigger on it would run for anyone; watch an authenticated endpoint such as /webhook`,
    ],
    // A wrong type is not a missing field: what was found is said ("required" was said for both).
    ['enabled written as a string', [valid({ enabled: 'true' })], `${FILE}: trigger #0 "deploy": enabled: must be true or false, found the string "true"`],
    ['a missing enabled', [valid({ enabled: undefined })], `${FILE}: trigger #0 "deploy": enabled: required, true or false`],
    ['a numeric name', [valid({ name: 7 })], `${FILE}: trigger #0: name: must be a non-empty string, found the number 7`],
    // Sent as written before: "./deploy.sh {{body.ref" ran with the literal text.
    [
      'an unclosed template token',
      [valid({ actions: [{ type: 'command', command: './deploy.sh {{body.ref' }] })],
      `${FILE}: trigger #0 "deploy": actions[0].command: unclosed template token {{body.ref: a token ends with }}, e.g. {{body.ref}}`,
    ],
    [
      'an unclosed token beside a closed one in a job',
      [valid({ actions: [{ type: 'agent', job: 'Deploy {{body.ref}} to {{ body.env }' }] })],
      `${FILE}: trigger #0 "deploy": actions[0].job: unclosed template token {{: a token ends with }}, e.g. {{body.ref}}`,
    ],
    ['a non-boolean enabled', [valid({ enabled: 'yes' })], `${FILE}: trigger #0 "deploy": enabled: must be true or false, found the string "yes"`],
    ['an unknown trigger field', [valid({ trigger_when: 'always' })], `${FILE}: trigger #0 "deploy": trigger_when: unknown field`],
    ['no actions', [valid({ actions: [] })], `${FILE}: trigger #0 "deploy": actions: must be a non-empty array, found an empty array`],
    [
      'an unknown action type',
      [valid({ actions: [{ type: 'email' }] })],
      `${FILE}: trigger #0 "deploy": actions[0].type: must be one of agent, command, webhook, found the string "email"`,
    ],
    ['an agent without job', [valid({ actions: [{ type: 'agent' }] })], `${FILE}: trigger #0 "deploy": actions[0].job: required, a non-empty string`],
    [
      'an unknown provider',
      [valid({ actions: [{ type: 'agent', job: 'x', llm_provider: 'acme' }] })],
      `${FILE}: trigger #0 "deploy": actions[0].llm_provider: must be one of anthropic, openai, google, custom`,
    ],
    [
      'a command that is not a string',
      [valid({ actions: [{ type: 'command', command: ['ls'] }] })],
      `${FILE}: trigger #0 "deploy": actions[0].command: must be a non-empty string, found an array`,
    ],
    [
      'a bad timeout',
      [valid({ actions: [{ type: 'command', command: 'ls', timeout: 0 }] })],
      `${FILE}: trigger #0 "deploy": actions[0].timeout: seconds, a number above 0 and at most 86400`,
    ],
    [
      'an unknown token',
      [valid({ actions: [{ type: 'command', command: 'echo {{env.HOME}}' }] })],
      `${FILE}: trigger #0 "deploy": actions[0].command: unknown template token {{env.HOME}}; tokens are {{body…}}, {{query…}}, {{headers…}}`,
    ],
    ['a webhook without url', [valid({ actions: [{ type: 'webhook' }] })], `${FILE}: trigger #0 "deploy": actions[0].url: required, a non-empty string`],
    [
      'a webhook url that is not http',
      [valid({ actions: [{ type: 'webhook', url: 'file:///etc/passwd' }] })],
      `${FILE}: trigger #0 "deploy": actions[0].url: must be an absolute http:// or https:// URL`,
    ],
    [
      'a webhook url with a user and password in it',
      [valid({ actions: [{ type: 'webhook', url: 'https://bot:hunter2@hooks.example.com/x' }] })],
      `${FILE}: trigger #0 "deploy": actions[0].url: must not hold a user or password (user:password@): send credentials in a header, e.g. Authorization`,
    ],
    [
      'a method other than GET or POST',
      [valid({ actions: [{ type: 'webhook', url: 'https://x', method: 'PUT' }] })],
      `${FILE}: trigger #0 "deploy": actions[0].method: must be GET or POST`,
    ],
    [
      'a header value that is not a string',
      [valid({ actions: [{ type: 'webhook', url: 'https://x', headers: { 'X-N': 1 } }] })],
      `${FILE}: trigger #0 "deploy": actions[0].headers.X-N: must be a string`,
    ],
    [
      'a header value with a line break',
      [valid({ actions: [{ type: 'webhook', url: 'https://x', headers: { Authorization: 'Bearer x\n' } }] })],
      `${FILE}: trigger #0 "deploy": actions[0].headers.Authorization: holds a character a header value cannot (a line break, a control character, or one past U+00FF)`,
    ],
    [
      'a header value with a character past U+00FF',
      [valid({ actions: [{ type: 'webhook', url: 'https://x', headers: { 'X-Team': 'équipe ✓' } }] })],
      `${FILE}: trigger #0 "deploy": actions[0].headers.X-Team: holds a character a header value cannot (a line break, a control character, or one past U+00FF)`,
    ],
    [
      'an agent llm_model longer than a job keeps',
      [valid({ actions: [{ type: 'agent', job: 'x', llm_model: 'm'.repeat(201) }] })],
      `${FILE}: trigger #0 "deploy": actions[0].llm_model: must be at most 200 characters`,
    ],
    [
      'vars that would hide the body',
      [valid({ actions: [{ type: 'webhook', url: 'https://x', vars: { data: 1 } }] })],
      `${FILE}: trigger #0 "deploy": actions[0].vars.data: is reserved for the original request body`,
    ],
    [
      'an unknown action field',
      [valid({ actions: [{ type: 'command', command: 'ls', url: 'x' }] })],
      `${FILE}: trigger #0 "deploy": actions[0].url: unknown field for a command action`,
    ],
  ];
  for (const [label, raw, expected] of cases) {
    it(`names ${label}`, () => {
      expect(problems(raw)).to.deep.equal([expected]);
    });
  }

  it('names the field a misspelled one most likely meant (a trigger’s, an action’s) and the endpoint a misspelled watch_path meant', () => {
    expect(problems([{ name: 'deploy', watch_path: '/webhok', enable: true, actions: [{ type: 'command', comand: 'ls', timout: 5 }] }])).to.deep.equal([
      `${FILE}: trigger #0 "deploy": watch_path: /webhok is not an endpoint (did you mean /webhook?); one of ${triggerCatalog().watchPaths.join(', ')}`,
      `${FILE}: trigger #0 "deploy": enabled: required, true or false`,
      `${FILE}: trigger #0 "deploy": enable: unknown field; did you mean enabled?`,
      `${FILE}: trigger #0 "deploy": actions[0].comand: unknown field for a command action; did you mean command?`,
      `${FILE}: trigger #0 "deploy": actions[0].timout: unknown field for a command action; did you mean timeout?`,
      `${FILE}: trigger #0 "deploy": actions[0].command: required, a non-empty string`,
    ]);
  });

  it('names no field the entry or action already has: {command, comand} says comand is unknown, not "did you mean command?"', () => {
    expect(problems([valid({ enabled: true, enable: false, actions: [{ type: 'command', command: 'make', comand: 'make test' }] })])).to.deep.equal([
      `${FILE}: trigger #0 "deploy": enable: unknown field`,
      `${FILE}: trigger #0 "deploy": actions[0].comand: unknown field for a command action`,
    ]);
  });

  it('names the field a misspelling that also changes case meant (COMAND, Enabel), and still accepts only the exact name', () => {
    const { enabled: _enabled, ...withoutEnabled } = valid({ Enabel: true, actions: [{ type: 'command', COMAND: 'make' }] });
    expect(problems([withoutEnabled])).to.deep.equal([
      `${FILE}: trigger #0 "deploy": enabled: required, true or false`,
      `${FILE}: trigger #0 "deploy": Enabel: unknown field; did you mean enabled?`,
      `${FILE}: trigger #0 "deploy": actions[0].COMAND: unknown field for a command action; did you mean command?`,
      `${FILE}: trigger #0 "deploy": actions[0].command: required, a non-empty string`,
    ]);
  });

  it('names the field an unknown one differs from in case only, and none for one far from every field', () => {
    const { enabled: _enabled, ...withoutEnabled } = valid({ Enabled: true });
    expect(problems([withoutEnabled])).to.deep.equal([
      `${FILE}: trigger #0 "deploy": enabled: required, true or false`,
      `${FILE}: trigger #0 "deploy": Enabled: unknown field; did you mean enabled?`,
    ]);
    expect(problems([valid({ Enabled: true })])).to.deep.equal([`${FILE}: trigger #0 "deploy": Enabled: unknown field`]);
    expect(problems([valid({ trigger_when: 'always' })])).to.deep.equal([`${FILE}: trigger #0 "deploy": trigger_when: unknown field`]);
  });

  it('accepts unsafe_raw on an agent action as a boolean only, and keeps it only when true', () => {
    const { triggers, problems: found } = validateTriggers(
      [
        valid({
          actions: [
            { type: 'agent', job: 'Raw {{body.x}}', unsafe_raw: true },
            { type: 'agent', job: 'Framed {{body.x}}', unsafe_raw: false },
          ],
        }),
      ],
      FILE,
      triggerCatalog(),
    );
    expect(found).to.deep.equal([]);
    expect(triggers[0].actions).to.deep.equal([
      { type: 'agent', job: 'Raw {{body.x}}', llmProvider: undefined, llmModel: undefined, unsafeRaw: true },
      { type: 'agent', job: 'Framed {{body.x}}', llmProvider: undefined, llmModel: undefined },
    ]);
    expect(problems([valid({ actions: [{ type: 'agent', job: 'x', unsafe_raw: 'yes' }] })])).to.deep.equal([
      `${FILE}: trigger #0 "deploy": actions[0].unsafe_raw: must be true or false`,
    ]);
    expect(problems([valid({ actions: [{ type: 'command', command: 'ls', unsafe_raw: true }] })])).to.deep.equal([
      `${FILE}: trigger #0 "deploy": actions[0].unsafe_raw: unknown field for a command action`,
    ]);
  });

  describe('refuses command tokens where no value may stand, naming the token and why', () => {
    const refusals: Array<[string, string, string]> = [
      ['inside a comment', 'make # {{body.v}}', 'inside a # comment: the command would never see the value'],
      [
        'in a here-document with a quoted delimiter',
        "cat <<'EOF'\n{{body.v}}\nEOF",
        "in a here-document whose delimiter is quoted (<<'EOF'), where nothing is expanded: the value would not arrive",
      ],
      ["inside $'…'", "echo $'{{body.v}}'", "inside $'…', where the value could not arrive as itself: use '…' or \"…\""],
      [
        'inside $((…))',
        'echo $(( {{body.v}} ))',
        'inside arithmetic ($((…)), ((…)) or $[…]), which evaluates the value as an expression that can run commands',
      ],
      [
        'inside ((…))',
        '(( {{body.v}} > 1 )) && make',
        'inside arithmetic ($((…)), ((…)) or $[…]), which evaluates the value as an expression that can run commands',
      ],
      [
        'inside [[ … ]]',
        '[[ {{body.v}} -eq 1 ]] && make',
        'inside [[ … ]], whose -eq, -lt… operands bash evaluates as arithmetic that can run commands: use [ … ]',
      ],
      ['right after a backslash', 'echo \\{{body.v}}', 'right after a backslash, which would escape the reference to the value instead of the value'],
      ['right after a $', 'echo ${{body.v}}', 'right after a $, which would join the reference to the value into another expansion'],
      ['in a here-document delimiter', 'cat <<{{body.v}}\nx', 'in a here-document delimiter, which must be fixed text'],
      [
        'inside an array subscript',
        'a[{{body.v}}]=1',
        'inside an array subscript (or what bash may read as one: quote the word if it is none), which bash evaluates as arithmetic that can run commands',
      ],
      [
        'inside ${x:offset}',
        'echo "${x:{{body.v}}}"',
        'inside ${name:offset:length}, whose offset and length bash evaluates as arithmetic that can run commands',
      ],
      ['as the name of an expansion', 'echo ${{{body.v}}}', 'as the name of a ${…} expansion: a value cannot name a variable'],
      [
        'assigned to an integer variable of bash',
        'export OPTIND={{body.v}}; make',
        'in an assignment to RANDOM, SRANDOM, OPTIND, HISTCMD or SECONDS, integer variables whose assigned value bash evaluates as arithmetic that can run commands',
      ],
      [
        'as a name given to declare',
        'declare {{body.v}}=1',
        'as (part of) a name given to declare, typeset, local, export or readonly, which bash reads as a name with a subscript it evaluates, an assignment or an option: give the value after a fixed name=',
      ],
      [
        'as the value of declare -n',
        'declare -n r={{body.v}}',
        'as the value of declare, typeset or local -n or -i, or of an array declared with -a or -A, which bash evaluates as a variable name, as arithmetic or as an array assignment (…) that can run commands',
      ],
      [
        'as a variable name given to read',
        'read -r {{body.v}} < in.txt',
        'as a variable name given to unset, read, getopts, printf -v, wait -p or test -v/-R, which bash reads as a name with a subscript it evaluates as arithmetic that can run commands',
      ],
      [
        'as an argument of mapfile',
        'mapfile -t {{body.v}} < in.txt',
        'as an argument of mapfile or readarray, which read an array name with a subscript bash evaluates and run -C as a command',
      ],
      [
        'as the word list of compgen -W',
        'compgen -W {{body.v}} -- a',
        'as an argument of compgen or complete, which expand a -W word list again and run -C and -F as commands',
      ],
      [
        'assigned to BASH_ENV before a bash script',
        'BASH_ENV={{body.v}} ./deploy.sh',
        'in an assignment (also by export or env) to a variable a shell or another program runs or loads code from (BASH_ENV, PATH, LD_PRELOAD, NODE_OPTIONS, GIT_SSH_COMMAND, EDITOR…): pass it under a name of your own (DEPLOY_REF={{…}} ./deploy.sh) (docs/triggers.md, "Places a token may not stand": variables)',
      ],
      [
        'as the action of trap',
        'trap {{body.v}} EXIT; make',
        'as an argument of trap, whose action the shell runs as a command when the signal comes (a value expanded into it becomes code)',
      ],
      [
        'as an argument of eval',
        'eval "deploy --env {{body.v}}"',
        'as an argument of eval, let, source, . or alias, which run it (or the file it names, or the alias where it is used) as shell code or evaluate it as arithmetic that can run commands',
      ],
      ['as the command name', '{{body.v}} --dry-run', 'as (part of) a command name: the value would choose the program that runs'],
      [
        'as the command string of sh -c',
        'sh -c "make {{body.v}}"',
        'as an option or the script of a shell (sh, bash, dash, ash, ksh, mksh, zsh): -c runs its operand as code, and without -c the first operand is the file run; pass values after the script, as its positional parameters (sh -c \'…"$1"…\' sh {{…}})',
      ],
    ];
    for (const [label, command, why] of refusals) {
      it(label, () => {
        expect(problems([valid({ actions: [{ type: 'command', command }] })])).to.deep.equal([
          `${FILE}: trigger #0 "deploy": actions[0].command: {{body.v}} stands ${why}`,
        ]);
      });
    }

    it('leaves agent jobs alone: a prompt is not a command line', () => {
      expect(problems([valid({ actions: [{ type: 'agent', job: 'Check # {{body.v}} and $(( {{body.v}} ))' }] })])).to.deep.equal([]);
    });
  });

  it('offers no public endpoint among the watchable ones, and refuses one even from a catalog that lists it as watchable', () => {
    const catalog = triggerCatalog();
    expect(catalog.watchPaths).to.include('/webhook').and.not.to.include('/ping');
    expect(catalog.publicWatchPaths).to.deep.equal(['/ping']);
    expect(problems([valid({ watch_path: '/hooks' })])[0]).not.to.contain('/ping');
    const careless = { watchPaths: ['/webhook', '/ping'], publicWatchPaths: ['/ping'], llmProviders: [] };
    expect(validateTriggers([valid({ watch_path: '/ping' })], FILE, careless).problems).to.deep.equal([
      `${FILE}: trigger #0 "deploy": watch_path: /ping is public (no authentication): a trigger on it would run for anyone; watch an authenticated endpoint such as /webhook`,
    ]);
  });

  it('checks watch paths and AI providers against the catalog it is given, nothing else', () => {
    const catalog = { watchPaths: ['/hooks/a'], llmProviders: ['acme'] };
    const agent = (provider: string) => valid({ watch_path: '/hooks/a', actions: [{ type: 'agent', job: 'x', llm_provider: provider }] });
    expect(validateTriggers([agent('acme')], FILE, catalog).problems).to.deep.equal([]);
    expect(validateTriggers([agent('openai'), valid()], FILE, catalog).problems).to.deep.equal([
      `${FILE}: trigger #0 "deploy": actions[0].llm_provider: must be one of acme`,
      `${FILE}: trigger #1 "deploy": name: duplicate of trigger #0`,
      `${FILE}: trigger #1 "deploy": watch_path: /webhook is not an endpoint; one of /hooks/a`,
    ]);
  });

  it('reports every problem of the file at once', () => {
    expect(problems([valid({ enabled: 1, actions: [] }), { name: 'b' }])).to.have.length(5);
  });
});

describe('matchTriggers', () => {
  const { triggers } = validateTriggers(
    [valid({ name: 'one' }), valid({ name: 'off', enabled: false }), valid({ name: 'other-path', watch_path: '/codehost/webhook' }), valid({ name: 'two' })],
    FILE,
    triggerCatalog(),
  );

  it('fires the enabled triggers watching the path, in file order', () => {
    expect(matchTriggers(triggers, '/webhook').map((t) => t.name)).to.deep.equal(['one', 'two']);
  });

  it('never fires a disabled trigger', () => {
    expect(matchTriggers(triggers, '/webhook').map((t) => t.name)).not.to.include('off');
  });

  it('compares whole paths', () => {
    expect(matchTriggers(triggers, '/webhook/')).to.deep.equal([]);
    expect(matchTriggers(triggers, '/codehost/webhook').map((t) => t.name)).to.deep.equal(['other-path']);
  });
});

describe("validateTriggers: request tokens in a webhook action's url or headers", () => {
  const WHY =
    "is not rendered here (tokens are rendered in a command and in an agent's job only): it would be sent as written; the request body is sent as the webhook's data field";
  it('refuses each, naming the field and the token: nothing renders them, so they were sent as written without a word', () => {
    expect(
      problems([
        valid({
          actions: [{ type: 'webhook', url: 'https://h.example.com/items/{{body.id}}?ref={{ query.ref }}', headers: { 'X-Ref': 'v-{{headers.x-ref}}' } }],
        }),
      ]),
    ).to.deep.equal([
      `${FILE}: trigger #0 "deploy": actions[0].url: {{body.id}} ${WHY}`,
      `${FILE}: trigger #0 "deploy": actions[0].url: {{ query.ref }} ${WHY}`,
      `${FILE}: trigger #0 "deploy": actions[0].headers.X-Ref: {{headers.x-ref}} ${WHY}`,
    ]);
  });
  it("takes other braces, and tokens in vars (values of the caller's own templates, sent as written)", () => {
    expect(
      problems([
        valid({ actions: [{ type: 'webhook', url: 'https://h.example.com/{x}', headers: { 'X-T': '{{name}}' }, vars: { template: 'Hi {{body.name}}' } }] }),
      ]),
    ).to.deep.equal([]);
  });
});

describe('validateTriggers: names that read alike', () => {
  it('refuses a name that reads as an earlier one: white space before or after it, or other code points for the same characters (NFC), naming the trigger it reads as', () => {
    expect(
      problems([
        valid({ name: 'deploy' }),
        valid({ name: 'deploy ' }),
        valid({ name: '\u00a0deploy' }),
        valid({ name: 'caf\u00e9' }),
        valid({ name: 'cafe\u0301' }),
      ]),
    ).to.deep.equal([
      `${FILE}: trigger #1 "deploy ": name: reads the same as trigger #0's name (the same characters, written with other code points or with white space around them): give it another name, or write both alike`,
      `${FILE}: trigger #2 "\u00a0deploy": name: reads the same as trigger #0's name (the same characters, written with other code points or with white space around them): give it another name, or write both alike`,
      `${FILE}: trigger #4 "cafe\u0301": name: reads the same as trigger #3's name (the same characters, written with other code points or with white space around them): give it another name, or write both alike`,
    ]);
  });
  it('takes a name with white space around it, or decomposed, when no other reads the same (a file of an earlier version starts as it did)', () => {
    expect(problems([valid({ name: 'deploy ' }), valid({ name: 'cafe\u0301' })])).to.deep.equal([]);
  });
  it('takes names that differ in case or in inner spaces, as they read differently', () => {
    expect(problems([valid({ name: 'deploy' }), valid({ name: 'Deploy' }), valid({ name: 'de ploy' }), valid({ name: 'cafe\u0301 only' })])).to.deep.equal([]);
  });
});

describe('validateTriggers: a refused long name', () => {
  it("is repeated cut to 200 characters by each problem of its entry, as a schedule's (a 1 000 000-character name made 5 MB of problems)", () => {
    const name = 'N'.repeat(1_000_000);
    const found = problems([valid({ name, watch_path: '/nowhere', enabled: 'yes' })]);
    expect(found).to.have.length(3);
    for (const problem of found) expect(problem.startsWith(`${FILE}: trigger #0 "${'N'.repeat(200)}…": `), problem.slice(0, 300)).to.equal(true);
    expect(found.join('\n').length).to.be.below(2_000);
  });
});

describe("validateTriggers: how deep a webhook action's vars may nest", () => {
  const nested = (depth: number): unknown => JSON.parse(`${'{"a":'.repeat(depth - 1)}[]${'}'.repeat(depth - 1)}`);
  const withVars = (vars: unknown) => [valid({ actions: [{ type: 'webhook', url: 'https://example.com/', vars }] })];
  const refused = `${FILE}: trigger #0 "deploy": actions[0].vars: nested deeper than 64 levels (objects and arrays inside one another), as no request body may be; the request could not be written`;

  it('takes 64 levels, as a request body, and the request it sends can be written', () => {
    const validation = validateTriggers(withVars(nested(64)), FILE, triggerCatalog());
    expect(validation.problems).to.deep.equal([]);
    const action = validation.triggers[0]!.actions[0]!;
    expect(() => JSON.stringify(action.type === 'webhook' ? { ...action.vars, data: {} } : undefined)).to.not.throw();
  });

  it('refuses 65 levels and more, through arrays too, naming the field', () => {
    expect(problems(withVars(nested(65)))).to.deep.equal([refused]);
    expect(problems(withVars({ list: JSON.parse(`${'['.repeat(64)}${']'.repeat(64)}`) }))).to.deep.equal([refused]);
  });

  it('refuses vars nested past what JSON.stringify can write (they were taken, and every send failed), without running out of stack itself', () => {
    const deep = nested(200_000);
    expect(() => JSON.stringify(deep)).to.throw(RangeError);
    expect(problems(withVars(deep))).to.deep.equal([refused]);
  });
});

describe('validateTriggers with values whose conversion to text throws', () => {
  const hostiles = UNCONVERTIBLE_VALUES;

  it('names such an object in any field of a trigger, of an action and of `when`, never converting it', () => {
    for (const [label, hostile] of hostiles) {
      expect(problems([valid({ actions: [{ type: hostile }] })]), `${label} in type`).to.deep.equal([
        `${FILE}: trigger #0 "deploy": actions[0].type: must be one of agent, command, webhook, found an object`,
      ]);
      for (const field of ['name', 'watch_path', 'enabled', 'when', 'actions', 'concurrency'])
        expect(problems([valid({ [field]: hostile })]).join('\n'), `${label} in ${field}`).to.include(`: ${field}`);
      for (const field of ['job', 'llm_provider', 'llm_model', 'unsafe_raw', 'command', 'timeout', 'retries', 'url', 'method', 'approval']) {
        const type = ['job', 'llm_provider', 'llm_model', 'unsafe_raw'].includes(field) ? 'agent' : ['url', 'method'].includes(field) ? 'webhook' : 'command';
        const action = { type, job: 'j', command: 'c', url: 'https://example.com/', [field]: hostile };
        expect(problems([valid({ actions: [action] })]).join('\n'), `${label} in ${field}`).to.include(`actions[0].${field}`);
      }
      for (const test of ['equals', 'in', 'prefix', 'regex'])
        expect(problems([valid({ when: { 'body.ref': { [test]: hostile } } })]).join('\n'), `${label} in when ${test}`).to.include(`when.body.ref.${test}`);
      for (const field of ['headers', 'vars'])
        expect(() => problems([valid({ actions: [{ type: 'webhook', url: 'https://example.com/', [field]: hostile }] })])).to.not.throw();
      expect(() => problems([valid({ when: { 'body.ref': hostile } })])).to.not.throw();
    }
  });
});
