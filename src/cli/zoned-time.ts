/** An instant as the clocks of a time zone show it. */
export interface ZonedTime {
  /** `2026-12-02` */
  readonly date: string;
  /** `09:00`, or `09:00:30` when the instant is not on a whole minute. */
  readonly time: string;
  /** The zone's offset from UTC then: `+01:00`, `-05:00`, `+10:30`, `+00:00`. */
  readonly offset: string;
}

const formats = new Map<string, Intl.DateTimeFormat>();

/** `at` on the clocks of `zone` (an IANA name Intl knows). */
export const zonedTime = (at: Date, zone: string): ZonedTime => {
  let format = formats.get(zone);
  if (format === undefined) {
    const digits = '2-digit';
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: digits,
      day: digits,
      hour: digits,
      minute: digits,
      second: digits,
      timeZoneName: 'longOffset',
    });
    formats.set(zone, format);
  }
  const part = Object.fromEntries(format.formatToParts(at).map((item) => [item.type, item.value]));
  // `GMT` alone for a zero offset; `GMT+10:30` otherwise.
  const offset = part.timeZoneName === 'GMT' ? '+00:00' : String(part.timeZoneName).replace(/^GMT/, '');
  const time = `${part.hour}:${part.minute}${part.second === '00' ? '' : `:${part.second}`}`;
  return { date: `${part.year}-${part.month}-${part.day}`, time, offset };
};

/** ISO 8601 with the zone's offset, whole seconds: `2026-12-02T09:00:00+01:00`. */
export const zonedIso = (at: Date, zone: string): string => {
  const { date, time, offset } = zonedTime(at, zone);
  return `${date}T${time.length === 5 ? `${time}:00` : time}${offset}`;
};

/**
 * `2026-12-02 09:00 Europe/Berlin (08:00 UTC)` — the UTC date too when it is another day
 * (`2026-12-02 00:30 Europe/Berlin (2026-12-01 23:30 UTC)`); `2026-12-02 08:00 UTC` in UTC.
 */
export const describeInZone = (at: Date, zone: string): string => {
  const local = zonedTime(at, zone);
  const utc = zonedTime(at, 'UTC');
  if (zone === 'UTC') return `${utc.date} ${utc.time} UTC`;
  return `${local.date} ${local.time} ${zone} (${utc.date === local.date ? '' : `${utc.date} `}${utc.time} UTC)`;
};
