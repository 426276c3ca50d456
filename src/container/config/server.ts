import { resolve } from 'node:path';
import { adminSocketPath } from '../../adapters/http/admin-socket/admin-socket-path.js';
import { z } from 'zod';
import { DATABASE_TIMEOUTS } from '../../adapters/shared/database-bounds.js';
import { shownInput } from '../../domain/errors/shown-input.js';
import { flag, integer, list, oneOf, optionalText, optionalUrl, path, proxyHops, secret, size, text } from './fields.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** The longest path of a Unix socket: sun_path holds 108 bytes on Linux, 104 on macOS, with its terminating NUL. */
const SOCKET_PATH_LIMIT = process.platform === 'linux' ? 107 : 103;

/** A host name as ADMIN_HOSTS takes it: letters, digits, hyphens and dots, no scheme, port or path; or `*`. */
const adminHostName = (name: string): string | undefined =>
  name === '*' || /^(?=.{1,253}\.?$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i.test(name)
    ? undefined
    : `"${shownInput(name)}" is not a host name (write gateway.example.com: no scheme, port or path), nor *`;

const isPostgresUrl = (value: string): boolean => {
  try {
    return ['postgres:', 'postgresql:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
};

/** The HTTP server, the database and the process: PORT, HOST, DATA_DIR, DATABASE_URL, … */
export const serverSchema = (cwd: string) =>
  z
    .object({
      PORT: integer(3000, 0, 65535),
      // Loopback unless told otherwise: the admin UI is plain HTTP (docs/deployment.md).
      HOST: text('127.0.0.1'),
      DATA_DIR: path('./data').superRefine((value, ctx) => {
        // The kernel's file systems hold no files of ours; Node's recursive mkdir never returns
        // under /proc (start-up hung there, at full CPU, without a word).
        const where = resolve(cwd, value);
        if (['/proc', '/sys', '/dev'].some((kernel) => where === kernel || where.startsWith(`${kernel}/`)))
          ctx.addIssue({ code: 'custom', message: `${where} is in a file system of the kernel (/proc, /sys, /dev), not a directory for the service's files` });
      }),
      DATABASE_URL: optionalText().superRefine((value, ctx) => {
        // Never echo the URL: it may carry a password.
        if (value !== undefined && !isPostgresUrl(value)) ctx.addIssue({ code: 'custom', message: 'not a postgres:// or postgresql:// URL' });
      }),
      DATABASE_CREATE: flag(false),
      DATABASE_CONNECT_TIMEOUT_MS: integer(DATABASE_TIMEOUTS.connectMs, 1_000, 600_000),
      DATABASE_QUERY_TIMEOUT_MS: integer(DATABASE_TIMEOUTS.queryMs, 1_000, 3_600_000),
      SHUTDOWN_TIMEOUT_MS: integer(10_000, 0, 600_000),
      TRUST_PROXY: proxyHops(),
      ADMIN_HOSTS: list(adminHostName),
      PUBLIC_URL: optionalUrl().superRefine((value, ctx) => {
        if (value !== undefined && !value.startsWith('https://'))
          ctx.addIssue({ code: 'custom', message: 'must be an https:// URL (the platforms deliver webhooks over HTTPS only)' });
      }),
      METRICS_TOKEN: optionalText().superRefine((value, ctx) => {
        // GET /metrics reads the token as the one word after `Bearer`; one with a space inside
        // could never match (Node refuses a control character in a header). Never echoed: a secret.
        if (value !== undefined && /[\s\p{Cc}]/u.test(value))
          ctx.addIssue({ code: 'custom', message: 'contains whitespace or a control character, which a bearer token cannot carry' });
      }),
      BODY_LIMIT: size('1mb'),
      REQUEST_TIMEOUT_MS: integer(60_000, 1_000, 3_600_000),
      LOG_LEVEL: oneOf(LOG_LEVELS, 'info'),
    })
    .superRefine((env, ctx) => {
      // On the embedded database the service serves the CLI on DATA_DIR/admin.sock; a longer
      // path than a Unix socket address holds failed only once the database was created and
      // migrated (listen EINVAL).
      if (env.DATABASE_URL !== undefined) return;
      const socket = adminSocketPath(resolve(cwd, env.DATA_DIR));
      const bytes = Buffer.byteLength(socket);
      if (bytes > SOCKET_PATH_LIMIT)
        ctx.addIssue({
          code: 'custom',
          path: ['DATA_DIR'],
          message: `too long: the admin socket "${shownInput(socket)}" would be ${bytes} bytes, and a Unix socket's path holds at most ${SOCKET_PATH_LIMIT}; choose a DATA_DIR of at most ${SOCKET_PATH_LIMIT - (bytes - Buffer.byteLength(resolve(cwd, env.DATA_DIR)))} bytes`,
        });
    })
    .transform((env) => ({
      port: env.PORT,
      host: env.HOST,
      dataDir: resolve(cwd, env.DATA_DIR),
      /** Unset means the embedded PGlite database under `dataDir`. */
      databaseUrl: env.DATABASE_URL,
      /** Create the database DATABASE_URL names when it does not exist (otherwise start-up stops). */
      databaseCreate: env.DATABASE_CREATE,
      /**
       * PostgreSQL: how long a connection may take to be made (or taken from a full pool), and a
       * statement to be answered, before it fails as the database being unavailable (503): a
       * server that stops answering without closing the connection (database-bounds.ts).
       */
      databaseTimeouts: { connectMs: env.DATABASE_CONNECT_TIMEOUT_MS, queryMs: env.DATABASE_QUERY_TIMEOUT_MS },
      shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
      /**
       * How many reverse proxies stand in front (0: none). Their X-Forwarded-Proto/For are trusted
       * (HTTPS detection for Secure cookies, client address for login limits), and only the last
       * `trustedProxies` addresses of X-Forwarded-For, which they appended: a client's own are not.
       */
      trustedProxies: env.TRUST_PROXY,
      /**
       * The service's public address (`https://host[/prefix]`), where the platforms reach it. Set,
       * a registration's webhook_url must be under it; unset, it must stay on the host the bot's
       * webhook points at now, and when it points nowhere a registration is refused (409: the
       * service cannot tell its own address from another's; RegisterMessagingWebhook). No trailing slash.
       */
      publicUrl: env.PUBLIC_URL?.replace(/\/+$/, ''),
      /**
       * Host names the admin UI answers under besides IP addresses, `localhost` and PUBLIC_URL's
       * host (lower-case, no trailing dot); `*` for any name. Behind a trusted proxy, any name.
       */
      adminHosts: (env.ADMIN_HOSTS as readonly string[]).map((name) => name.toLowerCase().replace(/\.$/, '')),
      /** Bearer token required by GET /metrics; unset leaves it open. Never logged. */
      metricsToken: env.METRICS_TOKEN,
      bodyLimit: env.BODY_LIMIT,
      /** How long a request (headers and body, not its answer) may take to arrive; then 408 (HttpServer). */
      requestTimeoutMs: env.REQUEST_TIMEOUT_MS,
      logLevel: env.LOG_LEVEL,
    }));

/** Secrets of the code host's webhooks. */
export const codehostWebhookSchema = z.object({ CODEHOST_WEBHOOK_SECRET: secret() }).transform((env) => ({
  /** Shared secret of code-host webhooks; unset means every delivery is refused. Never logged. */
  codehostWebhookSecret: env.CODEHOST_WEBHOOK_SECRET,
}));
