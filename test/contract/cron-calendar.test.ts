import { CronParserCronCalendar } from '../../src/adapters/schedule/cron-parser-cron-calendar.js';
import { describeCronCalendarContract } from './cron-calendar.contract.js';

describeCronCalendarContract('cron-parser', () => new CronParserCronCalendar());
