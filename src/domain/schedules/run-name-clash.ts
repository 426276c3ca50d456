import { scheduleRunName } from './schedule.js';

type Named = { readonly name: string };

/** A name as duplicate names are compared (duplicateNameProblem): without white space around it, NFC-normalized. */
const readAs = (name: string): string => name.trim().normalize('NFC');

/**
 * One problem per trigger whose name reads as the name a schedule's runs are recorded under
 * (`cron:<name>`, scheduleRunName), naming both files and both entries: the runs of both would
 * be one name in the run history, the admin UI and the logs. A trigger named `cron:x` alone is
 * no problem (an earlier version took it): only beside a schedule named `x`. The entries are
 * both files' valid entries, in file order (their index is their entry's).
 */
export const runNameClashes = (triggers: readonly Named[], schedules: readonly Named[], triggersFile: string, cronsFile: string): string[] => {
  const scheduleByRunName = new Map<string, number>();
  schedules.forEach((schedule, index) => {
    const key = readAs(scheduleRunName(schedule.name));
    if (!scheduleByRunName.has(key)) scheduleByRunName.set(key, index);
  });
  return triggers.flatMap((trigger, index) => {
    const found = scheduleByRunName.get(readAs(trigger.name));
    if (found === undefined) return [];
    const schedule = schedules[found].name;
    return [
      `${triggersFile}: trigger #${index} "${trigger.name}": name: reads as ${scheduleRunName(schedule)}, the name the runs of ${cronsFile}: schedule #${found} "${schedule}" are recorded under (a schedule's runs are recorded as cron:<its name>): the run history, the admin UI and the logs would show both as one; rename the trigger or the schedule`,
    ];
  });
};
