import { expect } from 'chai';
import { CronParserCronCalendar } from '../../../../src/adapters/schedule/cron-parser-cron-calendar.js';
import { scheduleSnapshot } from '../../../../src/domain/schedules/schedule-tokens.js';
import { validateSchedules, type ScheduleCatalog } from '../../../../src/domain/schedules/validate-schedules.js';
import { renderCommand } from '../../../../src/domain/templates/render-command.js';
import { UNCONVERTIBLE_VALUES } from '../../../support/hostile-values.js';

const calendar = new CronParserCronCalendar();
const catalog: ScheduleCatalog = { llmProviders: ['anthropic', 'openai'], cronProblem: (expression, timezone) => calendar.problem(expression, timezone) };
const entry = (overrides: Record<string, unknown> = {}) => ({
  name: 'nightly',
  schedule: '0 3 * * *',
  enabled: true,
  actions: [{ type: 'command', command: 'echo {{now}} {{schedule.name}}' }],
  ...overrides,
});

describe('validateSchedules', () => {
  it('accepts 5- and 6-field expressions with a time zone, catch_up defaulting to true', () => {
    const { schedules, problems } = validateSchedules(
      [entry(), entry({ name: 'fast', schedule: '*/2 * * * * *', timezone: 'Europe/Berlin', catch_up: false })],
      'CRONS.json',
      catalog,
    );
    expect(problems).to.deep.equal([]);
    expect(schedules.map((s) => [s.name, s.schedule, s.timezone, s.catchUp])).to.deep.equal([
      ['nightly', '0 3 * * *', undefined, true],
      ['fast', '*/2 * * * * *', 'Europe/Berlin', false],
    ]);
  });

  it('renders {{now}} and {{schedule.name}} for a command through the environment, never as shell text', () => {
    const { schedules } = validateSchedules([entry()], 'CRONS.json', catalog);
    const action = schedules[0].actions[0];
    if (action.type !== 'command') throw new Error('a command action');
    const rendered = renderCommand(action.command, scheduleSnapshot('nightly', new Date('2026-03-01T03:00:00Z')));
    expect(Object.values(rendered.env)).to.deep.equal(['2026-03-01T03:00:00.000Z', 'nightly']);
    expect(rendered.script).to.not.include('2026');
  });

  it('refuses a name longer than its records keep (195 characters), so no schedule is accepted that could never run', () => {
    expect(validateSchedules([entry({ name: 'n'.repeat(195) })], 'config/CRONS.json', catalog).problems).to.deep.equal([]);
    expect(validateSchedules([entry({ name: 'n'.repeat(196) })], 'config/CRONS.json', catalog).problems).to.deep.equal([
      `config/CRONS.json: schedule #0 "${'n'.repeat(196)}": name: at most 195 characters`,
    ]);
  });

  it('refuses a name holding a control or invisible character (a terminal escape, a line break, a bidi override), naming the character', () => {
    for (const [name, code] of [
      ['ok\u001b]52;c;x\u0007', 'U+001B'],
      ['a\nb', 'U+000A'],
      ['tab\tbed', 'U+0009'],
      ['evil\u202Egnp.exe', 'U+202E'],
    ] as const) {
      const problems = validateSchedules([entry({ name })], 'config/CRONS.json', catalog).problems;
      expect(problems, JSON.stringify(name)).to.have.length(1);
      expect(problems[0], JSON.stringify(name)).to.include(`: name: holds ${code}; a name may hold no control character`);
    }
    expect(validateSchedules([entry({ name: 'nightly backup — café' })], 'config/CRONS.json', catalog).problems).to.deep.equal([]);
  });

  it('refuses a name holding a lone surrogate (a \\udc00 escape), which the database cannot store with its records', () => {
    const problems = validateSchedules([entry({ name: 'nightly\udc00' })], 'config/CRONS.json', catalog).problems;
    expect(problems).to.have.length(1);
    expect(problems[0]).to.include(': name: holds U+DC00, half of a surrogate pair without its other half');
  });

  it('refuses a name that reads as an earlier one once trimmed and Unicode-normalized; takes such a name alone', () => {
    const { problems } = validateSchedules(
      [entry({ name: 'nightly' }), entry({ name: 'nightly ' }), entry({ name: 'caf\u00e9' }), entry({ name: 'cafe\u0301' }), entry({ name: ' weekly' })],
      'config/CRONS.json',
      catalog,
    );
    expect(problems).to.deep.equal([
      `config/CRONS.json: schedule #1 "nightly ": name: reads the same as schedule #0's name (the same characters, written with other code points or with white space around them): give it another name, or write both alike`,
      `config/CRONS.json: schedule #3 "cafe\u0301": name: reads the same as schedule #2's name (the same characters, written with other code points or with white space around them): give it another name, or write both alike`,
    ]);
  });

  it('names the file, the entry and the field of every problem at once', () => {
    const { problems } = validateSchedules(
      [
        entry({ schedule: '0 3 * *' }),
        entry({ name: 'nightly', schedule: '99 * * * *', timezone: 'Nowhere/City', enabled: 'yes', catch_up: 'no', extra: 1 }),
        entry({ name: 'request', actions: [{ type: 'agent', job: 'Summarise {{body.text}} for {{query.who}}' }] }),
        { name: 'empty', schedule: '* * * * *', enabled: true, actions: [] },
      ],
      'config/CRONS.json',
      catalog,
    );
    expect(problems).to.deep.equal([
      'config/CRONS.json: schedule #0 "nightly": schedule: "0 3 * *" has 4 fields; a cron expression has 5 (or 6, seconds first)',
      'config/CRONS.json: schedule #1 "nightly": name: duplicate of schedule #0',
      'config/CRONS.json: schedule #1 "nightly": timezone: "Nowhere/City" is not an IANA time zone (e.g. Europe/Berlin, UTC)',
      'config/CRONS.json: schedule #1 "nightly": enabled: must be true or false, found the string "yes"',
      'config/CRONS.json: schedule #1 "nightly": catch_up: true or false (default true)',
      'config/CRONS.json: schedule #1 "nightly": extra: unknown field',
      'config/CRONS.json: schedule #2 "request": actions[0].job: unknown template token {{body.text}}; a schedule\'s tokens are {{now}} and {{schedule.name}} (there is no request)',
      'config/CRONS.json: schedule #2 "request": actions[0].job: unknown template token {{query.who}}; a schedule\'s tokens are {{now}} and {{schedule.name}} (there is no request)',
      'config/CRONS.json: schedule #3 "empty": actions: must be a non-empty array, found an empty array',
    ]);
  });

  it('names no field the entry already has, and the field a misspelling that also changes case meant', () => {
    const { problems } = validateSchedules([entry({ timezone: 'UTC', timezon: 'Europe/Berlin', CATCHUP: false })], 'CRONS.json', catalog);
    expect(problems).to.deep.equal([
      'CRONS.json: schedule #0 "nightly": timezon: unknown field',
      'CRONS.json: schedule #0 "nightly": CATCHUP: unknown field; did you mean catch_up?',
    ]);
  });

  it('names the field a misspelled one most likely meant', () => {
    const { problems } = validateSchedules([entry({ timezon: 'UTC', catchup: false })], 'CRONS.json', catalog);
    expect(problems).to.deep.equal([
      'CRONS.json: schedule #0 "nightly": timezon: unknown field; did you mean timezone?',
      'CRONS.json: schedule #0 "nightly": catchup: unknown field; did you mean catch_up?',
    ]);
  });

  it('refuses approval on a schedule action (nobody is asked at a schedule’s time)', () => {
    const { problems } = validateSchedules([entry({ actions: [{ type: 'command', command: 'true', approval: true }] })], 'CRONS.json', catalog);
    expect(problems).to.deep.equal(['CRONS.json: schedule #0 "nightly": actions[0].approval: not available for schedule actions (approvals are for triggers)']);
  });

  it('refuses an expression the calendar cannot read', () => {
    const { problems } = validateSchedules([entry({ schedule: '61 * * * *' })], 'CRONS.json', catalog);
    expect(problems).to.have.length(1);
    expect(problems[0]).to.match(/^CRONS\.json: schedule #0 "nightly": schedule: "61 \* \* \* \*" is not a valid cron expression/);
  });

  it('refuses H (cron-parser draws a new random value for it at every parse), naming the field; its deterministic extensions stay accepted', () => {
    const expressions = ['H * * * *', 'H/5 * * * * *', '0 H(0-5) * * *', '0 1,H * * *'];
    const { problems } = validateSchedules(
      expressions.map((schedule, i) => entry({ name: `s${i}`, schedule })),
      'config/CRONS.json',
      catalog,
    );
    const rule =
      'uses H, which the cron library reads as a new random time at every look (replicas would run the schedule at different times, several times an hour); write the minute or hour you want';
    expect(problems).to.deep.equal([
      `config/CRONS.json: schedule #0 "s0": schedule: "H * * * *": minute field "H" ${rule}`,
      `config/CRONS.json: schedule #1 "s1": schedule: "H/5 * * * * *": second field "H/5" ${rule}`,
      `config/CRONS.json: schedule #2 "s2": schedule: "0 H(0-5) * * *": hour field "H(0-5)" ${rule}`,
      `config/CRONS.json: schedule #3 "s3": schedule: "0 1,H * * *": hour field "1,H" ${rule}`,
    ]);
    const accepted = [
      '*/15 0-6,22-23 1,15 JAN-MAR mon-fri',
      '0 9 * * 1-5',
      '30 2 * * THU',
      '*/10 * * * * *',
      '0 0 L * *',
      '0 0 * * 5L',
      '0 0 * * 1#2',
      '0 0 ? * MON',
    ];
    expect(
      validateSchedules(
        accepted.map((schedule, i) => entry({ name: `s${i}`, schedule })),
        'CRONS.json',
        catalog,
      ).problems,
    ).to.deep.equal([]);
  });

  it('refuses H wherever it stands in a field once month and weekday names are read (list, range, step, beside a letter or digit), naming file, entry and field', () => {
    // Each of these passes cron-parser (some only for some draws) and runs at a random time.
    const refused: Array<[string, string, string]> = [
      ['*/H * * * *', 'minute', '*/H'],
      ['0-H * * * *', 'minute', '0-H'],
      ['5/H * * * *', 'minute', '5/H'],
      ['0 0 1-H * *', 'day-of-month', '1-H'],
      ['0 0 HL * *', 'day-of-month', 'HL'],
      ['0 0 1H * *', 'day-of-month', '1H'],
      ['0 0 * * H#2', 'day-of-week', 'H#2'],
      ['0 0 * * 1-H', 'day-of-week', '1-H'],
      ['0 0 * * thuH', 'day-of-week', 'thuH'],
      ['0 0 * MARH *', 'month', 'MARH'],
      ['0 0 * h-mar *', 'month', 'h-mar'],
      ['*/H 0 0 * * *', 'second', '*/H'],
    ];
    const { problems, schedules } = validateSchedules(
      refused.map(([schedule], i) => entry({ name: `s${i}`, schedule })),
      'config/CRONS.json',
      catalog,
    );
    expect(schedules).to.deep.equal([]);
    expect(problems).to.deep.equal(
      refused.map(
        ([schedule, field, text], i) =>
          `config/CRONS.json: schedule #${i} "s${i}": schedule: "${schedule}": ${field} field "${text}" uses H, which the cron library reads as a new random time at every look (replicas would run the schedule at different times, several times an hour); write the minute or hour you want`,
      ),
    );
  });

  it("refuses a step that is no whole number in digits from 1 to the field's count of values, naming file, entry and field", () => {
    // Accepted before: the step past the field's values ran once an hour (minute 0), a name as a step was read as its number.
    const refused: Array<[string, string, string, string, string]> = [
      ['*/1e20 * * * *', 'minute', '*/1e20', '1e20', '60 values: 0-59'],
      ['*/1.5 * * * *', 'minute', '*/1.5', '1.5', '60 values: 0-59'],
      ['*/0x10 * * * *', 'minute', '*/0x10', '0x10', '60 values: 0-59'],
      ['*/ 5 * * *', 'minute', '*/', '', '60 values: 0-59'],
      ['*/90 * * * *', 'minute', '*/90', '90', '60 values: 0-59'],
      ['0-30/61 * * * *', 'minute', '0-30/61', '61', '60 values: 0-59'],
      ['0 1,2/0 * * *', 'hour', '1,2/0', '0', '24 values: 0-23'],
      ['0 */25 * * *', 'hour', '*/25', '25', '24 values: 0-23'],
      ['0 0 */32 * *', 'day-of-month', '*/32', '32', '31 values: 1-31'],
      ['0 0 1 1/mar *', 'month', '1/mar', 'mar', '12 values: 1-12'],
      ['0 0 * * 1/mon', 'day-of-week', '1/mon', 'mon', '7 values: 0-6, Sunday also 7'],
      ['0 0 * * */8', 'day-of-week', '*/8', '8', '7 values: 0-6, Sunday also 7'],
      ['*/+5 0 0 * * *', 'second', '*/+5', '+5', '60 values: 0-59'],
      ['*/-1 0 0 * * *', 'second', '*/-1', '-1', '60 values: 0-59'],
    ];
    const { problems, schedules } = validateSchedules(
      refused.map(([schedule], i) => entry({ name: `s${i}`, schedule })),
      'config/CRONS.json',
      catalog,
    );
    expect(schedules).to.deep.equal([]);
    expect(problems).to.deep.equal(
      refused.map(
        ([schedule, field, text, step, values], i) =>
          `config/CRONS.json: schedule #${i} "s${i}": schedule: "${schedule}": ${field} field "${text}" has the step "${step}"; a step is a whole number from 1 to ${values.split(' ')[0]} written in digits (the field has ${values})`,
      ),
    );
    const accepted = ['*/5 * * * *', '*/60 * * * *', '0-30/05 */24 * * *', '0 0 */31 */12 */7', '0 0 1-15/2 JAN-JUN/3 MON-FRI/2', '*/1 */59 * * * *'];
    const taken = validateSchedules(
      accepted.map((schedule, i) => entry({ name: `s${i}`, schedule })),
      'CRONS.json',
      catalog,
    );
    expect(taken.problems).to.deep.equal([]);
    expect(taken.schedules.map((schedule) => schedule.schedule)).to.deep.equal(accepted);
  });

  it('still takes month and weekday names holding an h (THU, thu, MAR-DEC, mon-thu) and L, #, ? with a time zone', () => {
    // (cron-parser reads no W: `15W` is refused by the calendar, as before.)
    const accepted = ['0 0 * * THU', '0 0 * * thu', '0 0 * MAR-DEC *', '0 0 1 mar mon-thu', '0 0 * * THU#2', '0 0 * * thuL', '0 0 L MAR ?', '0 0 0 ? * THU'];
    const { problems, schedules } = validateSchedules(
      accepted.map((schedule, i) => entry({ name: `s${i}`, schedule, timezone: 'Europe/Berlin' })),
      'CRONS.json',
      catalog,
    );
    expect(problems).to.deep.equal([]);
    expect(schedules.map((schedule) => schedule.schedule)).to.deep.equal(accepted);
  });

  it('takes the time zones Intl knows, as before (names in another case, offsets); refuses one it does not', () => {
    const zones = ['Europe/Berlin', 'UTC', 'Etc/UTC', 'GMT', 'America/New_York', 'US/Eastern', 'europe/berlin', '+05:00'];
    expect(
      validateSchedules(
        zones.map((timezone, i) => entry({ name: `s${i}`, timezone })),
        'CRONS.json',
        catalog,
      ).problems,
    ).to.deep.equal([]);
    expect(validateSchedules([entry({ timezone: 'Mars/Olympus' })], 'CRONS.json', catalog).problems).to.deep.equal([
      'CRONS.json: schedule #0 "nightly": timezone: "Mars/Olympus" is not an IANA time zone (e.g. Europe/Berlin, UTC)',
    ]);
  });

  it('names an object whose conversion to text throws ({"toString": 1}) in any field, never converting it', () => {
    const hostiles = UNCONVERTIBLE_VALUES;
    for (const [label, hostile] of hostiles) {
      expect(
        validateSchedules([{ name: 'c', schedule: '* * * * *', enabled: true, actions: [{ type: hostile }] }], 'config/CRONS.json', catalog).problems,
        label,
      ).to.deep.equal(['config/CRONS.json: schedule #0 "c": actions[0].type: must be one of agent, command, webhook, found an object']);
      for (const field of ['name', 'schedule', 'timezone', 'enabled', 'catch_up', 'actions']) {
        const found = validateSchedules([entry({ [field]: hostile })], 'config/CRONS.json', catalog).problems;
        expect(found.length, `${label} in ${field}`).to.be.above(0);
        expect(found.join('\n'), `${label} in ${field}`).to.include(`: ${field}: `);
      }
      for (const field of ['job', 'llm_provider', 'llm_model', 'unsafe_raw', 'command', 'timeout', 'retries', 'url', 'method']) {
        const type = ['job', 'llm_provider', 'llm_model', 'unsafe_raw'].includes(field)
          ? 'agent'
          : ['url', 'method', 'headers', 'vars'].includes(field)
            ? 'webhook'
            : 'command';
        const action = { type, job: 'j', command: 'c', url: 'https://example.com/', [field]: hostile };
        const found = validateSchedules([entry({ actions: [action] })], 'config/CRONS.json', catalog).problems;
        expect(found.join('\n'), `${label} in ${field}`).to.include(`actions[0].${field}`);
      }
      // Objects of names to values: such an object is one (read by its keys), never converted.
      for (const field of ['headers', 'vars'])
        expect(() =>
          validateSchedules([entry({ actions: [{ type: 'webhook', url: 'https://example.com/', [field]: hostile }] })], 'CRONS.json', catalog),
        ).to.not.throw();
    }
  });

  it('quotes a long refused name, expression, field or time zone cut to 200 characters and an ellipsis, naming file, entry and field (attacker pass, S1)', () => {
    const long = (text: string) => text.repeat(Math.ceil(150_000 / text.length));
    const { problems } = validateSchedules(
      [
        entry({ name: long('n') }),
        entry({ name: 'fields', schedule: long('0 ') }),
        entry({ name: 'range', schedule: `${long('9')} * * * *` }),
        entry({ name: 'h', schedule: `0 ${long('H')} * * *` }),
        entry({ name: 'zone', timezone: long('Z') }),
      ],
      'CRONS.json',
      catalog,
    );
    expect(problems).to.have.length(5);
    for (const problem of problems) expect(problem.length).to.be.below(700);
    expect(problems[0]).to.equal(`CRONS.json: schedule #0 "${'n'.repeat(200)}…": name: at most 195 characters`);
    expect(problems[1]).to.equal(
      `CRONS.json: schedule #1 "fields": schedule: "${long('0 ').slice(0, 200)}…" has 75000 fields; a cron expression has 5 (or 6, seconds first)`,
    );
    expect(problems[2]).to.match(/^CRONS\.json: schedule #2 "range": schedule: "9{200}…" is not a valid cron expression \(.{0,201}\)$/);
    expect(problems[3]).to.match(/^CRONS\.json: schedule #3 "h": schedule: "0 H{198}…": hour field "H{200}…" uses H/);
    expect(problems[4]).to.equal(`CRONS.json: schedule #4 "zone": timezone: "${'Z'.repeat(200)}…" is not an IANA time zone (e.g. Europe/Berlin, UTC)`);
  });

  it('refuses a file that is not an array', () => {
    expect(validateSchedules({}, 'CRONS.json', catalog).problems).to.deep.equal(['CRONS.json: must be a JSON array of schedules, found an object']);
  });
});
