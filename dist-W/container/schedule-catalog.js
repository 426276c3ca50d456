import { AI_PROVIDER_NAMES } from '../adapters/ai/ai-providers.js';
import { CronParserCronCalendar } from '../adapters/schedule/cron-parser-cron-calendar.js';
/** What schedule files are checked against: the AI provider registry and the cron calendar. */
export const scheduleCatalog = () => {
    const calendar = new CronParserCronCalendar();
    return { llmProviders: AI_PROVIDER_NAMES, cronProblem: (expression, timezone) => calendar.problem(expression, timezone) };
};
//# sourceMappingURL=schedule-catalog.js.map