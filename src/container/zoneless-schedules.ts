import { DEFAULT_SCHEDULE_ZONE, type Schedule } from '../domain/schedules/schedule.js';

/** The zone of this process: `TZ`, else the system's. */
export const processZone = (): string => new Intl.DateTimeFormat().resolvedOptions().timeZone;

/**
 * When enabled schedules have no `timezone` and this process runs in another zone than UTC: the
 * warning that they are read in UTC (since this version; they were read in the service's zone
 * before), naming them (at most five), with the way to keep local time. Null otherwise.
 */
export const zonelessWarning = (schedules: readonly Schedule[], given?: string): string | null => {
  const names = schedules.filter((schedule) => schedule.enabled && schedule.timezone === undefined).map((schedule) => JSON.stringify(schedule.name));
  if (names.length === 0) return null;
  // Only now: the process's zone is read through Intl, whose first use loads the zone data (~45 ms of a start on the 2-core machine).
  const zone = given ?? processZone();
  if (zone === DEFAULT_SCHEDULE_ZONE || zone === 'Etc/UTC') return null;
  const shown = names.length > 5 ? `${names.slice(0, 5).join(', ')} and ${names.length - 5} more` : names.join(', ');
  return `schedules without "timezone" are read in UTC, not in this process's zone ${zone}: ${shown} (give them "timezone": "${zone}" to run on its clocks)`;
};
