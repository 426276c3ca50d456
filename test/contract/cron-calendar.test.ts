import { expect } from 'chai';
import { CronParserCronCalendar } from '../../src/adapters/schedule/cron-parser-cron-calendar.js';
import { describeCronCalendarContract } from './cron-calendar.contract.js';

describeCronCalendarContract('cron-parser', () => new CronParserCronCalendar());

describe('CronParserCronCalendar where the clocks skip midnight (America/Santiago, 6 September 2026: 00:00 becomes 01:00)', () => {
  // cron-parser's prev() gives up (throws) for `0 0 * * *` all that day; next() runs the day's midnight at 01:00 (04:00Z).
  it('finds the day’s occurrence the loop runs as the last one, all day, and the day before’s before it', () => {
    const calendar = new CronParserCronCalendar();
    const previous = (at: string) => calendar.previous('0 0 * * *', 'America/Santiago', new Date(at))?.toISOString();
    expect(previous('2026-09-06T03:59:00Z')).to.equal('2026-09-05T04:00:00.000Z');
    expect(previous('2026-09-06T04:00:00Z')).to.equal('2026-09-06T04:00:00.000Z');
    expect(previous('2026-09-06T10:00:00Z')).to.equal('2026-09-06T04:00:00.000Z');
    expect(previous('2026-09-07T02:59:59Z')).to.equal('2026-09-06T04:00:00.000Z');
    expect(previous('2026-09-07T03:00:00Z')).to.equal('2026-09-07T03:00:00.000Z');
  });

  it('keeps what it found: the loop’s looks, asking for the day’s occurrence and the one before the change each minute, search again for neither', () => {
    const calendar = new CronParserCronCalendar();
    const next = calendar.next.bind(calendar);
    let searched = 0;
    calendar.next = (...args) => {
      searched++;
      return next(...args);
    };
    const look = (at: string) => [
      calendar.previous('0 0 * * *', 'America/Santiago', new Date(at))?.toISOString(),
      calendar.previous('0 0 * * *', 'America/Santiago', new Date('2026-09-06T03:59:59.999Z'))?.toISOString(),
    ];
    expect(look('2026-09-06T04:00:00Z')).to.deep.equal(['2026-09-06T04:00:00.000Z', '2026-09-05T04:00:00.000Z']);
    searched = 0;
    for (const at of ['2026-09-06T04:01:00Z', '2026-09-06T04:02:00Z', '2026-09-06T12:00:00Z'])
      expect(look(at)).to.deep.equal(['2026-09-06T04:00:00.000Z', '2026-09-05T04:00:00.000Z']);
    expect(searched).to.equal(0);
  });
});

describe('CronParserCronCalendar the day before the clocks go back half an hour at 02:00 (Australia/Lord_Howe, 5 April 2026) (schedules attacker pass)', () => {
  // cron-parser's next() iterates for seconds and gives up (throws) for `0,30 2 * * *` from the
  // 4 April 02:30 (15:30Z on the 3rd) until the change (15:00Z on the 4th): the schedule had no
  // next run for a day, each look of the loop blocking the event loop for seconds, and a check
  // of the file then refused it.
  const expression = '0,30 2 * * *';
  const zone = 'Australia/Lord_Howe';

  it('gives the 02:00 after the change (15:30Z), from anywhere that day, and the 02:30 after it', () => {
    const calendar = new CronParserCronCalendar();
    const next = (at: string) => calendar.next(expression, zone, new Date(at))?.toISOString();
    expect(next('2026-04-03T15:30:00Z')).to.equal('2026-04-04T15:30:00.000Z');
    expect(next('2026-04-04T12:00:00Z')).to.equal('2026-04-04T15:30:00.000Z');
    expect(next('2026-04-04T14:59:59Z')).to.equal('2026-04-04T15:30:00.000Z');
    expect(next('2026-04-04T15:30:00Z')).to.equal('2026-04-04T16:00:00.000Z');
  });

  it('finds no problem with the expression on that day', () => {
    const calendar = new CronParserCronCalendar(() => new Date('2026-04-04T12:00:00Z'));
    expect(calendar.problem(expression, zone)).to.equal(undefined);
  });
});
