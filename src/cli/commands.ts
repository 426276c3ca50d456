import { isUuid } from '../domain/ids/is-uuid.js';
import type { CliIo } from './cli-io.js';
import type { CommandSpec, ParsedCommand } from './command-line.js';

/** What `serve` resolves to: the service runs on; the process must not exit. */
export const SERVING = -1;

const WHERE = `Where the database is: DATABASE_URL set means PostgreSQL, worked on directly; unset
means the embedded database in DATA_DIR (default ./data) — through the running server's admin
socket while a server holds it, opened here otherwise. The first line on stderr says which.
Use the same DATABASE_URL or DATA_DIR (environment or .env in the working directory) as the
server.`;

/**
 * Refuses an ID argument that cannot be an id (they are UUIDs): the same message whether the
 * running server or the database opened here would have answered, which would not agree.
 */
const uuidId =
  (message: string) =>
  ({ positionals }: ParsedCommand): string | undefined =>
    isUuid(positionals[0] ?? '') ? undefined : message;

const JSON_OPTION = { type: 'boolean', help: 'print JSON on stdout instead of text' } as const;

/**
 * Every command: its words, options, usage text and what runs it. `run` loads the command's
 * module only when the command runs, and that module loads only what its way to the database
 * needs: `--help`, a usage error or a command answered by the running server never load the
 * ORM, the container or a database engine.
 */
export const commands = (io: CliIo): CommandSpec[] => [
  {
    words: ['serve'],
    synopsis: '',
    summary: 'start the service (what npm start does)',
    description: 'Starts the service in the foreground, configured as docs/configuration.md says; SIGTERM or SIGINT stops it gracefully.',
    options: {},
    run: async () => {
      const { readConfig } = await import('./command-context.js');
      const config = await readConfig();
      await import('reflect-metadata');
      await (await import('./serve.js')).serve(config);
      return SERVING;
    },
  },
  {
    words: ['migrate'],
    synopsis: '',
    summary: 'apply pending database migrations (the service also does at start-up)',
    description: `Applies the migrations the database lacks and lists them ("Applied 5 migrations: …"), or
says "Database is up to date". While a server runs on the embedded database it has applied
them at its start: the command reports what that server applied.

${WHERE}`,
    options: {},
    run: async (parsed) => (await import('./migrate-command.js')).migrate(parsed, io),
  },
  {
    words: ['keys', 'create'],
    synopsis: '--name NAME [--json]',
    summary: 'create an API key; the key is printed once',
    description: `Creates an API key and prints it once: only its digest is stored. With --json prints
{"id", "name", "key", "created_at"}.

${WHERE}`,
    options: { name: { type: 'string', value: 'NAME', help: "the key's name (1–100 characters), shown in lists and logs" }, json: JSON_OPTION },
    required: ['name'],
    run: async (parsed) => (await import('./keys-command.js')).createKey(parsed, io),
  },
  {
    words: ['keys', 'list'],
    synopsis: '[--json]',
    summary: 'list API keys (never the keys themselves)',
    description: `Lists every API key: id, name, display prefix, creation and last use — never a key. With
--json prints an array of {"id", "name", "prefix", "created_at", "last_used_at"}.

${WHERE}`,
    options: { json: JSON_OPTION },
    run: async (parsed) => (await import('./keys-command.js')).listKeys(parsed, io),
  },
  {
    words: ['keys', 'revoke'],
    synopsis: 'ID',
    summary: "delete a key's record, revoking it at once",
    description: `Deletes the record of the key with this id (see keys list): the key stops working at once,
on every server using the database. Exit code 1 when no key has this id.

${WHERE}`,
    options: {},
    positionals: ['ID'],
    check: uuidId('Key id must be a UUID (see keys list)'),
    run: async (parsed) => (await import('./keys-command.js')).revokeKey(parsed, io),
  },
  {
    words: ['triggers', 'check'],
    synopsis: '[--file F]',
    summary: 'validate the trigger file (TRIGGERS_FILE by default)',
    description: `Validates the trigger file as start-up does, without starting anything: one line per
problem and exit code 1 when it is invalid.`,
    options: { file: { type: 'string', value: 'F', help: 'the file to check (default: TRIGGERS_FILE, config/TRIGGERS.json)' } },
    run: async (parsed) => (await import('./triggers-command.js')).checkTriggers(parsed, io),
  },
  {
    words: ['crons', 'check'],
    synopsis: '[--file F] [--json]',
    summary: 'validate the schedule file (CRONS_FILE by default)',
    description: `Validates the schedule file as start-up does, without starting anything: one line per
problem and exit code 1 when it is invalid; when valid, each schedule with its next run as the
scheduler runs it (daylight-saving changes included), in the schedule's time zone and in UTC
(UTC alone for a schedule without "timezone": the service reads those in UTC, whatever TZ is).
--json prints an array of {"name", "enabled", "schedule", "timezone", "zone", "catch_up",
"actions", "next", "next_local"}: "next" in UTC, "next_local" with the zone's offset.`,
    options: {
      file: { type: 'string', value: 'F', help: 'the file to check (default: CRONS_FILE, config/CRONS.json)' },
      json: JSON_OPTION,
    },
    run: async (parsed) => (await import('./crons-command.js')).checkCrons(parsed, io),
  },
  {
    words: ['reload'],
    synopsis: '',
    summary: 'have the running service reload the trigger and schedule files',
    description: `Has the running service reload TRIGGERS_FILE and CRONS_FILE without a restart (as SIGHUP
and a change of either file do). When a file is invalid the service keeps what it runs, and
this command prints every problem and exits with code 1. On the embedded database the server
holding it reloads through its admin socket; on PostgreSQL the files are checked here, then
every server on the database is asked to reload (NOTIFY agw_reload).

${WHERE}`,
    options: {},
    run: async (parsed) => (await import('./reload-command.js')).reload(parsed, io),
  },
  {
    words: ['deliveries', 'list'],
    synopsis: '[--path P] [--trigger T] [--before TIME [--before-id ID]] [--limit N] [--json]',
    summary: 'list stored requests that fired triggers, newest first',
    description: `Lists the delivery log: every request that fired a trigger (webhooks, code-host and chat
deliveries), kept for RETENTION_ACTION_RUNS_DAYS and never less than 15 days (for good when it
is 0), newest first (by time, then id): id, time, path, the triggers it fired and, for a
replay, the request it replays. With --json prints an array of {"id", "received_at", "path",
"triggers", "replay_of"}, the path as the list shows it (/api/webhook). The next page:
--before the RECEIVED time and --before-id the ID of the last line shown (--before alone lists
what was received before that time, and skips the other requests of its millisecond).

${WHERE}`,
    options: {
      path: { type: 'string', value: 'P', help: "only requests to this endpoint, as the list shows it or without /api (e.g. '/api/webhook' or '/webhook')" },
      trigger: { type: 'string', value: 'T', help: 'only requests that fired the trigger named T' },
      before: { type: 'string', value: 'TIME', help: 'only requests received before TIME (e.g. 2026-11-24T10:00:00Z)' },
      'before-id': {
        type: 'string',
        value: 'ID',
        help: 'with --before: the requests after the one with this ID received at TIME, in the list order (the next page)',
      },
      limit: { type: 'string', value: 'N', help: 'at most N requests (1–500, default 50)' },
      json: JSON_OPTION,
    },
    run: async (parsed) => (await import('./deliveries-command.js')).listDeliveries(parsed, io),
  },
  {
    words: ['deliveries', 'show'],
    synopsis: 'ID [--json]',
    summary: 'show a stored request, the triggers it fired and how their actions went',
    description: `Shows one stored request (see deliveries list): its path and time, each trigger run it
started with its actions' status, exit code or HTTP status, error and output, and the request
as stored (body, query, headers; credentials are never stored). Exit code 1 when no request has
this id (never stored, or removed by retention).

${WHERE}`,
    options: { json: JSON_OPTION },
    positionals: ['ID'],
    check: uuidId('Request id must be a UUID (see deliveries list)'),
    run: async (parsed) => (await import('./deliveries-command.js')).showDelivery(parsed, io),
  },
  {
    words: ['deliveries', 'replay'],
    synopsis: 'ID',
    summary: 'fire the triggers of a stored request again, with that request',
    description: `Fires again the triggers the stored request fired, as they are configured now, with the
request as it was stored (byte for byte), recorded as a new request that replays it (see
deliveries show). A trigger that would not fire for it now (disabled or removed, no longer
watching its path, or its when no longer matching) is skipped and named with the reason. Exit code 1
when no request has this id or none of its triggers can fire. On a database opened here (no
server running on it) the runs are queued and run when the service runs; the trigger file
(TRIGGERS_FILE) is read as the service reads it.

${WHERE}`,
    options: {},
    positionals: ['ID'],
    check: uuidId('Request id must be a UUID (see deliveries list)'),
    run: async (parsed) => (await import('./deliveries-command.js')).replayDelivery(parsed, io),
  },
  {
    words: ['admin', 'set-password'],
    synopsis: '',
    summary: 'set the admin UI password (asked twice on a terminal, else read from stdin)',
    description: `Sets the admin UI's password and ends every admin session. On a terminal it is asked
twice, without echo, and two different answers change nothing; otherwise the first line of
stdin is the password:  printf '%s\\n' "$PASSWORD" | agent-gateway admin set-password

${WHERE}`,
    options: {},
    run: async (parsed) => (await import('./admin-command.js')).setAdminPassword(parsed, io),
  },
];
