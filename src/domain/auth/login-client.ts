/**
 * Who a login attempt counts against, from the client's address: an IPv4 address as it is;
 * an IPv6 address by its /64 network, which one subscriber holds whole (counted per address,
 * it could try 5 passwords per address of 2^64); an IPv4 address written as IPv6
 * (`::ffff:192.0.2.1`) as the IPv4 address. Anything else (no address) as it is.
 */
export const loginClientOf = (address: string): string => {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped?.[1].split('.').every((byte) => Number(byte) <= 255)) return mapped[1];
  if (!address.includes(':')) return address;
  const groups = expandIpv6(address.split('%')[0]);
  return groups === undefined ? address : `${groups.slice(0, 4).join(':')}::/64`;
};

/** The eight 16-bit groups of an IPv6 address, lower case without leading zeros; undefined when it is none. */
const expandIpv6 = (address: string): string[] | undefined => {
  const halves = address.toLowerCase().split('::');
  if (halves.length > 2) return undefined;
  const part = (text: string): string[] => (text === '' ? [] : text.split(':'));
  const head = part(halves[0]);
  const tail = halves.length === 2 ? part(halves[1]) : [];
  // An embedded IPv4 tail (::ffff:1.2.3.4 handled above; 64:ff9b::1.2.3.4 and the like) is two groups.
  const last = tail.length > 0 ? tail : head;
  const dotted = last.at(-1)?.includes('.') ? last.pop() : undefined;
  if (dotted !== undefined) {
    const bytes = dotted.split('.').map(Number);
    if (bytes.length !== 4 || bytes.some((byte) => !Number.isInteger(byte) || byte < 0 || byte > 255)) return undefined;
    last.push(((bytes[0] << 8) | bytes[1]).toString(16), ((bytes[2] << 8) | bytes[3]).toString(16));
  }
  const missing = 8 - head.length - tail.length;
  if ((halves.length === 2 && missing < 1) || (halves.length === 1 && missing !== 0)) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (!groups.every((group) => /^[0-9a-f]{1,4}$/.test(group))) return undefined;
  return groups.map((group) => Number.parseInt(group, 16).toString(16));
};
