import { createHash, randomBytes } from 'node:crypto';

/*
 * The task queue's ids, in a module of their own: the service's start makes run ids before the
 * task queue (pg-boss) is loaded (early-intake.ts), and they must be the same ids.
 */

const formatUuid = (hex: string): string => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;

let lastMs = 0;
let sequence = 0;
/**
 * Random bytes for ids, drawn 4 KiB at a time (as crypto.randomUUID caches its own): one system
 * call per 512 ids instead of one each, which was 4.6 % of the main thread under webhook load.
 */
let randomPool = Buffer.alloc(0);
let randomAt = 0;
const random8 = (): Buffer => {
  if (randomAt + 8 > randomPool.length) {
    randomPool = randomBytes(4096);
    randomAt = 0;
  }
  randomAt += 8;
  return randomPool.subarray(randomAt - 8, randomAt);
};
/**
 * A UUIDv7 (RFC 9562): milliseconds, then a counter, then random bits, so ids sort in the
 * order this process made them — the database's clock ties (PGlite keeps milliseconds, and
 * one insert gives all its rows one timestamp) and does not.
 */
export const orderedTaskId = (): string => {
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    sequence = 0;
  } else if (++sequence > 0xfff) {
    lastMs++;
    sequence = 0;
  }
  const random = random8();
  random[0] = (random[0] & 0x3f) | 0x80;
  return formatUuid(`${lastMs.toString(16).padStart(12, '0')}7${sequence.toString(16).padStart(3, '0')}${random.toString('hex')}`);
};

/** The id of the task with idempotency key `key`: the same for the same queue and key, a UUIDv8. */
export const keyedTaskId = (queue: string, key: string): string => {
  const digest = createHash('sha256').update(`${queue}\u0000${key}`).digest();
  digest[6] = (digest[6] & 0x0f) | 0x80;
  digest[8] = (digest[8] & 0x3f) | 0x80;
  return formatUuid(digest.subarray(0, 16).toString('hex'));
};
