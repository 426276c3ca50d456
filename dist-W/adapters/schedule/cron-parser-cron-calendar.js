import { CronExpressionParser } from 'cron-parser';
const validZone = (timezone) => {
    try {
        new Intl.DateTimeFormat('en', { timeZone: timezone });
        return true;
    }
    catch {
        return false;
    }
};
/** CronCalendar on cron-parser: 5 fields, or 6 with seconds first; IANA time zones. */
export class CronParserCronCalendar {
    problem(expression, timezone) {
        if (timezone !== undefined && !validZone(timezone))
            return `timezone: "${timezone}" is not an IANA time zone (e.g. Europe/Berlin, UTC)`;
        try {
            CronExpressionParser.parse(expression, { tz: timezone, strict: false }).next();
            return undefined;
        }
        catch (error) {
            return `"${expression}" is not a valid cron expression (${error.message})`;
        }
    }
    next(expression, timezone, after) {
        try {
            return CronExpressionParser.parse(expression, { tz: timezone, currentDate: after }).next().toDate();
        }
        catch {
            return null;
        }
    }
    previous(expression, timezone, at) {
        try {
            // prev() is strictly before its start: start a millisecond after `at` so that `at` itself counts.
            return CronExpressionParser.parse(expression, { tz: timezone, currentDate: new Date(at.getTime() + 1) })
                .prev()
                .toDate();
        }
        catch {
            return null;
        }
    }
}
//# sourceMappingURL=cron-parser-cron-calendar.js.map