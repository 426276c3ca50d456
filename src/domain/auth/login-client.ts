/** The one client that every text which is no address counts as (see loginClientOf). */
export const UNKNOWN_LOGIN_CLIENT = 'unknown';

/**
 * Who a login attempt counts against, from the client's address as Koa gives it (the socket's
 * address, or with TRUST_PROXY an X-Forwarded-For entry, which some proxies write with a port):
 * - a port is dropped (`203.0.113.5:51234`, `[2001:db8::1]:443`), or every new connection of
 *   one client would count as another client;
 * - an IPv4 address as itself, in its plain form (also written as IPv6, `::ffff:192.0.2.1`);
 * - an IPv6 address by its /64 network, which one subscriber holds whole (counted per address,
 *   it could try 5 passwords per address of 2^64);
 * - anything else (no address, `unknown`, garbage) as one shared client, UNKNOWN_LOGIN_CLIENT:
 *   counted as it is, each different text would be a fresh client.
 */
export const loginClientOf = (address: string): string => {
  const host = withoutPort(address.trim());
  const ipv4 = plainIpv4(host);
  if (ipv4 !== undefined) return ipv4;
  const groups = expandIpv6(host.split('%')[0]);
  if (groups === undefined) return UNKNOWN_LOGIN_CLIENT;
  // An IPv4 address written as IPv6 (::ffff:192.0.2.1, or its hex form ::ffff:c000:201).
  if (groups.slice(0, 5).every((group) => group === '0') && groups[5] === 'ffff') {
    const [high, low] = [Number.parseInt(groups[6], 16), Number.parseInt(groups[7], 16)];
    return [high >> 8, high & 255, low >> 8, low & 255].join('.');
  }
  return `${groups.slice(0, 4).join(':')}::/64`;
};

/**
 * The network a login attempt comes from, for sharing out password checks fairly (see
 * PasswordCheckSlots): an IPv4 client by its /24, an IPv6 client by its /48 (what a site, or a
 * free tunnel broker, hands out whole: its 65 536 /64s are that many clients, but one network),
 * UNKNOWN_LOGIN_CLIENT as itself.
 */
export const loginNetworkOf = (address: string): string => {
  const client = loginClientOf(address);
  if (client === UNKNOWN_LOGIN_CLIENT) return client;
  if (client.endsWith('::/64')) return `${client.split(':').slice(0, 3).join(':')}::/48`;
  return `${client.split('.').slice(0, 3).join('.')}.0/24`;
};

/** `[v6]:port` and `[v6]` → `v6`; `v4:port` → `v4`; anything else as it is (a bare IPv6 address has no port to drop). */
const withoutPort = (address: string): string => {
  const bracketed = /^\[([^\]]*)\](?::\d{1,5})?$/.exec(address);
  if (bracketed) return bracketed[1];
  const ipv4WithPort = /^([\d.]+):\d{1,5}$/.exec(address);
  return ipv4WithPort ? ipv4WithPort[1] : address;
};

/** A dotted IPv4 address in its plain form (`010.0.0.1` → `10.0.0.1`); undefined when it is none. */
const plainIpv4 = (text: string): string | undefined => {
  const bytes = ipv4Bytes(text);
  return bytes?.join('.');
};

const ipv4Bytes = (text: string): number[] | undefined => {
  if (!/^\d{1,3}(?:\.\d{1,3}){3}$/.test(text)) return undefined;
  const bytes = text.split('.').map(Number);
  return bytes.every((byte) => byte <= 255) ? bytes : undefined;
};

/** The eight 16-bit groups of an IPv6 address, lower case without leading zeros; undefined when it is none. */
const expandIpv6 = (address: string): string[] | undefined => {
  if (!address.includes(':')) return undefined;
  const halves = address.toLowerCase().split('::');
  if (halves.length > 2) return undefined;
  const part = (text: string): string[] => (text === '' ? [] : text.split(':'));
  const head = part(halves[0]);
  const tail = halves.length === 2 ? part(halves[1]) : [];
  // An embedded IPv4 tail (::ffff:1.2.3.4, 64:ff9b::1.2.3.4 and the like) is two groups.
  const last = tail.length > 0 ? tail : head;
  const dotted = last.at(-1)?.includes('.') ? last.pop() : undefined;
  if (dotted !== undefined) {
    const bytes = ipv4Bytes(dotted);
    if (bytes === undefined) return undefined;
    last.push(((bytes[0] << 8) | bytes[1]).toString(16), ((bytes[2] << 8) | bytes[3]).toString(16));
  }
  const missing = 8 - head.length - tail.length;
  if ((halves.length === 2 && missing < 1) || (halves.length === 1 && missing !== 0)) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (!groups.every((group) => /^[0-9a-f]{1,4}$/.test(group))) return undefined;
  return groups.map((group) => Number.parseInt(group, 16).toString(16));
};
