import { expect } from 'chai';
import type { CronCalendar } from '../../src/ports/cron-calendar.js';

const at = (iso: string): Date => new Date(iso);
const iso = (date: Date | null): string | null => date?.toISOString() ?? null;

/** The occurrences after `from`, one `next` after the other. */
const walk = (calendar: CronCalendar, expression: string, timezone: string | undefined, from: Date, count: number): Array<string | null> => {
  const seen: Array<string | null> = [];
  let cursor: Date | null = from;
  for (let i = 0; i < count && cursor !== null; i++) {
    cursor = calendar.next(expression, timezone, cursor);
    seen.push(iso(cursor));
  }
  return seen;
};

/**
 * The behaviour every CronCalendar adapter must have. Expressions reach it with 5 fields (or 6,
 * seconds first): the schedule file's validation counts the fields before asking it.
 */
export const describeCronCalendarContract = (name: string, make: () => CronCalendar): void => {
  describe(`CronCalendar contract: ${name}`, () => {
    let calendar: CronCalendar;
    beforeEach(() => {
      calendar = make();
    });

    it('finds no problem with valid expressions of 5 fields or 6 (seconds first), in the service zone or a named one', () => {
      const expressions = ['* * * * *', '0 9 * * 1-5', '*/15 8-18 * * mon,wed,fri', '0 0 1 jan *', '30 2 * * 0', '0 0 * * 7', '*/10 * * * * *', '5 0 9 * * *'];
      for (const expression of expressions) {
        for (const timezone of [undefined, 'UTC', 'Europe/Berlin', 'America/New_York']) {
          expect(calendar.problem(expression, timezone), `${expression} in ${timezone}`).to.equal(undefined);
        }
      }
    });

    it('says why an expression is refused, naming it, in a message that is not about the time zone', () => {
      for (const expression of ['61 * * * *', '* 24 * * *', '* * 32 * *', '* * * 13 *', '* * * * 8', '0 9 * * someday', 'a b c d e']) {
        const problem = calendar.problem(expression, 'UTC');
        expect(problem, expression).to.be.a('string').and.to.contain(expression);
        expect(problem).not.to.match(/^timezone: /);
      }
    });

    it('refuses a time zone that is not an IANA one, in a message starting with "timezone: " that names it', () => {
      for (const timezone of ['Europe/Berln', 'CEST+2', 'Mars/Olympus_Mons', '']) {
        const problem = calendar.problem('0 9 * * *', timezone);
        expect(problem, JSON.stringify(timezone))
          .to.be.a('string')
          .and.to.match(/^timezone: /);
        expect(problem).to.contain(`"${timezone}"`);
      }
    });

    it('gives the first occurrence strictly after the moment: an occurrence itself is not next', () => {
      expect(iso(calendar.next('0 9 * * *', 'UTC', at('2026-06-01T08:59:59.999Z')))).to.equal('2026-06-01T09:00:00.000Z');
      expect(iso(calendar.next('0 9 * * *', 'UTC', at('2026-06-01T09:00:00.000Z')))).to.equal('2026-06-02T09:00:00.000Z');
      expect(iso(calendar.next('0 9 * * *', 'UTC', at('2026-06-01T09:00:00.500Z')))).to.equal('2026-06-02T09:00:00.000Z');
    });

    it('gives the last occurrence at or before the moment: an occurrence itself counts', () => {
      expect(iso(calendar.previous('0 9 * * *', 'UTC', at('2026-06-01T09:00:00.000Z')))).to.equal('2026-06-01T09:00:00.000Z');
      expect(iso(calendar.previous('0 9 * * *', 'UTC', at('2026-06-01T09:00:00.500Z')))).to.equal('2026-06-01T09:00:00.000Z');
      expect(iso(calendar.previous('0 9 * * *', 'UTC', at('2026-06-01T08:59:59.999Z')))).to.equal('2026-05-31T09:00:00.000Z');
    });

    it('reads a sixth field as seconds, first', () => {
      expect(iso(calendar.next('*/10 * * * * *', 'UTC', at('2026-06-01T12:00:03Z')))).to.equal('2026-06-01T12:00:10.000Z');
      expect(iso(calendar.previous('*/10 * * * * *', 'UTC', at('2026-06-01T12:00:03Z')))).to.equal('2026-06-01T12:00:00.000Z');
      expect(iso(calendar.next('5 0 9 * * *', 'UTC', at('2026-06-01T00:00:00Z')))).to.equal('2026-06-01T09:00:05.000Z');
    });

    it('reads day-of-week names, ranges and Sunday as 0 or 7', () => {
      // 2026-06-01 is a Monday
      expect(iso(calendar.next('0 9 * * 1-5', 'UTC', at('2026-06-05T10:00:00Z'))), 'Friday after 9: Monday').to.equal('2026-06-08T09:00:00.000Z');
      expect(iso(calendar.next('0 0 * * 0', 'UTC', at('2026-06-01T00:00:00Z')))).to.equal('2026-06-07T00:00:00.000Z');
      expect(iso(calendar.next('0 0 * * 7', 'UTC', at('2026-06-01T00:00:00Z')))).to.equal('2026-06-07T00:00:00.000Z');
      expect(iso(calendar.next('0 0 * * sun', 'UTC', at('2026-06-01T00:00:00Z')))).to.equal('2026-06-07T00:00:00.000Z');
    });

    it('reads the expression in the named time zone, through its daylight-saving time', () => {
      expect(iso(calendar.next('0 9 * * *', 'Europe/Berlin', at('2026-06-01T00:00:00Z'))), 'summer (UTC+2)').to.equal('2026-06-01T07:00:00.000Z');
      expect(iso(calendar.next('0 9 * * *', 'Europe/Berlin', at('2026-12-01T00:00:00Z'))), 'winter (UTC+1)').to.equal('2026-12-01T08:00:00.000Z');
      expect(iso(calendar.next('0 9 * * *', 'America/New_York', at('2026-12-01T00:00:00Z')))).to.equal('2026-12-01T14:00:00.000Z');
      expect(iso(calendar.previous('0 9 * * *', 'Europe/Berlin', at('2026-06-01T12:00:00Z')))).to.equal('2026-06-01T07:00:00.000Z');
    });

    it("reads it in UTC when none is named, whatever the process's zone", () => {
      const saved = process.env.TZ;
      try {
        process.env.TZ = 'Asia/Tokyo';
        expect(iso(calendar.next('0 9 * * *', undefined, at('2026-06-01T00:00:00Z'))), 'TZ=Asia/Tokyo').to.equal('2026-06-01T09:00:00.000Z');
        expect(iso(calendar.previous('0 9 * * *', undefined, at('2026-06-01T12:00:00Z'))), 'TZ=Asia/Tokyo').to.equal('2026-06-01T09:00:00.000Z');
        process.env.TZ = 'UTC';
        expect(iso(calendar.next('0 9 * * *', undefined, at('2026-06-01T00:00:00Z'))), 'UTC').to.equal('2026-06-01T09:00:00.000Z');
      } finally {
        if (saved === undefined) delete process.env.TZ;
        else process.env.TZ = saved;
      }
    });

    it('runs a daily time that a daylight-saving change skips or repeats once that day', () => {
      // Europe/Berlin: 2026-03-29 02:00 → 03:00 (02:30 does not exist), 2026-10-25 03:00 → 02:00 (02:30 comes twice)
      const spring = walk(calendar, '30 2 * * *', 'Europe/Berlin', at('2026-03-28T12:00:00Z'), 2);
      expect(spring.filter((occurrence) => occurrence?.startsWith('2026-03-29'))).to.have.length(1);
      expect(spring[1]).to.equal('2026-03-30T00:30:00.000Z');
      const autumn = walk(calendar, '30 2 * * *', 'Europe/Berlin', at('2026-10-24T12:00:00Z'), 2);
      expect(autumn.filter((occurrence) => occurrence?.startsWith('2026-10-25'))).to.have.length(1);
      expect(autumn[1]).to.equal('2026-10-26T01:30:00.000Z');
    });

    it('ticks on evenly through a daylight-saving change, forwards with next and backwards with previous', () => {
      const halfHours = (from: string, count: number) =>
        Array.from({ length: count }, (_, i) => new Date(at(from).getTime() + (i + 1) * 30 * 60_000).toISOString());
      expect(walk(calendar, '*/30 * * * *', 'Europe/Berlin', at('2026-03-29T00:00:00Z'), 5)).to.deep.equal(halfHours('2026-03-29T00:00:00Z', 5));
      expect(walk(calendar, '*/30 * * * *', 'Europe/Berlin', at('2026-10-25T00:00:00Z'), 5)).to.deep.equal(halfHours('2026-10-25T00:00:00Z', 5));
      const back: Array<string | null> = [];
      let cursor: Date | null = at('2026-10-25T02:00:00Z');
      for (let i = 0; i < 5 && cursor !== null; i++) {
        const found: Date | null = calendar.previous('*/30 * * * *', 'Europe/Berlin', cursor);
        back.push(iso(found));
        cursor = found && new Date(found.getTime() - 1);
      }
      expect(back).to.deep.equal([
        '2026-10-25T02:00:00.000Z',
        '2026-10-25T01:30:00.000Z',
        '2026-10-25T01:00:00.000Z',
        '2026-10-25T00:30:00.000Z',
        '2026-10-25T00:00:00.000Z',
      ]);
    });

    it('has no next or previous occurrence of an impossible date', () => {
      for (const expression of ['0 0 30 2 *', '0 0 31 4 *']) {
        expect(calendar.next(expression, 'UTC', at('2026-01-01T00:00:00Z')), expression).to.equal(null);
        expect(calendar.previous(expression, 'UTC', at('2026-01-01T00:00:00Z')), expression).to.equal(null);
      }
    });
  });
};
