import type { Container } from 'inversify';
import type { AdminSocketClient } from '../adapters/http/admin-socket/admin-socket-client.js';
import { parseExactJson } from '../domain/templates/exact-json.js';
import type { CliIo } from './cli-io.js';
import type { ParsedCommand } from './command-line.js';
import { databaseOfCommand } from './command-context.js';
import { terminalField, terminalSafe } from './terminal-text.js';
import { withAdministration } from './database-access.js';
import { onDatabase } from './on-database.js';
import { BadArgument, CliFailure } from './usage-error.js';

/** What the server or the database answered, as JSON: times are ISO text on both ways. */
type Json = Record<string, unknown>;

const asJson = <T>(value: T): Json => JSON.parse(JSON.stringify(value)) as Json;

/**
 * Runs a delivery-log command wherever the database is (onDatabase): through the running server's
 * admin socket, or on the database opened here with the deliveries container. A replay opened here
 * needs the trigger file (`firesTriggers`): the tasks it queues run when the service runs.
 */
const onDeliveries = async <T>(
  io: CliIo,
  work: { server: (client: AdminSocketClient) => Promise<T>; direct: (container: Container) => Promise<T> },
  firesTriggers = false,
): Promise<T> => {
  const { config, target } = await databaseOfCommand(io);
  return onDatabase(io, target, {
    server: work.server,
    direct: async (direct) => {
      // Read only: a server that takes the database before the open below leaves nothing done here.
      let triggers: Awaited<ReturnType<typeof import('../container/load-triggers.js').loadTriggers>> | undefined;
      if (firesTriggers) {
        const [{ loadTriggers }, { PinoLogger }, { pino }] = await Promise.all([
          import('../container/load-triggers.js'),
          import('../adapters/logging/pino-logger.js'),
          import('pino'),
        ]);
        triggers = await loadTriggers(config, new PinoLogger(pino({ level: 'warn' }, pino.destination(2))));
      }
      return withAdministration(config, direct, io, work.direct, {
        load: async () => (await import('../container/build-deliveries-container.js')).buildDeliveriesContainer,
        ...(triggers ? { triggers } : {}),
      });
    },
  });
};

const history = async (container: Container) => {
  const { TOKENS } = await import('../container/tokens.js');
  return container.getAsync(TOKENS.DeliveryHistory);
};

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const list = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : []);

/**
 * The list's filter as the parameters parseDeliveryFilter and the admin socket take (a query
 * string): `--before-id` is `before_id`.
 */
export const deliveryListQuery = (values: ParsedCommand['values']): Record<string, string> => {
  const raw: Record<string, string> = {};
  for (const [option, name] of [
    ['path', 'path'],
    ['trigger', 'trigger'],
    ['before', 'before'],
    ['before-id', 'before_id'],
    ['limit', 'limit'],
  ] as const)
    if (typeof values[option] === 'string') raw[name] = values[option] as string;
  return raw;
};

/**
 * `deliveries list [--path P] [--trigger T] [--before TIME [--before-id ID]] [--limit N] [--json]`,
 * newest first (received time, then id): the next page is `--before` the RECEIVED time and
 * `--before-id` the ID of the last line shown.
 */
export const listDeliveries = async ({ values }: ParsedCommand, io: CliIo): Promise<number> => {
  const raw = deliveryListQuery(values);
  const [{ parseDeliveryFilter }, { isDomainError }] = await Promise.all([
    import('../application/triggers/delivery-history.js'),
    import('../domain/errors/domain-error.js'),
  ]);
  let filter: ReturnType<typeof parseDeliveryFilter>;
  try {
    filter = parseDeliveryFilter(raw); // a malformed option fails here, before the database is opened
  } catch (error) {
    // An option value the command cannot take (--limit 0): a command line that cannot be used (exit code 2, docs/cli.md).
    throw isDomainError(error) ? new BadArgument(error.message) : error;
  }
  const rows = await onDeliveries(io, {
    server: (client) => client.deliveries(new URLSearchParams(raw).toString()),
    direct: async (container) => list(asJson({ list: await (await history(container)).list(filter) }).list),
  });
  const shown = rows.map(deliveryRow);
  if (values.json === true) io.out.write(`${JSON.stringify(shown)}\n`);
  else if (shown.length === 0) io.out.write('No stored deliveries match.\n');
  else {
    io.out.write(`${['ID', 'RECEIVED', 'PATH', 'TRIGGERS', 'REPLAY OF'].join('\t')}\n`);
    for (const row of shown)
      io.out.write(terminalSafe(`${[row.id, row.received_at, row.path, row.triggers.join(',') || '-', row.replay_of ?? '-'].join('\t')}\n`));
  }
  return 0;
};

/**
 * A stored request as `deliveries list --json` prints it, and as `deliveries show --json` begins:
 * snake_case, the path as called (`/api/webhook`, as the plain text shows it).
 */
export const deliveryRow = (request: Json) => ({
  id: text(request.id),
  received_at: text(request.receivedAt),
  path: `/api${text(request.watchPath)}`,
  triggers: Array.isArray(request.triggers) ? request.triggers.map(String) : [],
  replay_of: typeof request.replayOf === 'string' ? request.replayOf : null,
});

const numberOrNull = (value: unknown): number | null => (typeof value === 'number' ? value : null);
const textOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/**
 * `deliveries show --json`: the list's row, the request as stored (parsed JSON) and each trigger
 * run with its actions, snake_case. An action's outcome is given by the fields an operator reads
 * (null when the action has none); the details the service keeps for itself (the fingerprints a
 * run finds its records by, the stored request's id again, its start marks) are left out.
 */
export const deliveryJson = (delivery: Json) => {
  const request = delivery.request as Json;
  return {
    ...deliveryRow(request),
    request: parsedRequest(text(request.request)),
    runs: list(delivery.runs).map((run) => ({
      trigger: text(run.trigger),
      run_id: text(run.runId),
      actions: list(run.actions).map((action) => {
        const detail = (action.detail ?? {}) as Json;
        return {
          action_index: numberOrNull(action.actionIndex),
          type: text(action.type),
          status: text(action.status),
          attempts: numberOrNull(action.attempts),
          started_at: textOrNull(action.startedAt),
          finished_at: textOrNull(action.finishedAt),
          error: textOrNull(action.error),
          exit_code: numberOrNull(detail.exitCode),
          command_ms: numberOrNull(detail.commandMs),
          http_status: numberOrNull(detail.httpStatus),
          job_id: textOrNull(detail.jobId),
          approval_id: textOrNull(detail.approvalId),
          output: textOrNull(detail.output),
        };
      }),
    })),
  };
};

/** `deliveries show ID [--json]`: the stored request, the triggers it fired and how their actions went. */
export const showDelivery = async ({ values, positionals }: ParsedCommand, io: CliIo): Promise<number> => {
  const [id] = positionals as [string];
  const delivery = await onDeliveries(io, {
    server: (client) => client.delivery(id),
    direct: async (container) => asJson(await (await history(container)).show(id)),
  });
  if (values.json === true) {
    io.out.write(`${JSON.stringify(deliveryJson(delivery))}\n`);
    return 0;
  }
  writeDelivery(delivery, (line) => io.out.write(line));
  return 0;
};

/**
 * `deliveries show`'s plain text of a delivery, written line by line. What a stored request, an
 * action's error or a command printed is the caller's text: shown, never acted on by the
 * terminal; an error, on its one line, cannot end it and forge the lines after it.
 */
export const writeDelivery = (delivery: Json, write: (text: string) => void): void => {
  const request = delivery.request as Json;
  const out = (line: string) => write(terminalSafe(line));
  out(`Delivery ${text(request.id)}: /api${text(request.watchPath)}, received ${text(request.receivedAt)}\n`);
  if (typeof request.replayOf === 'string') out(`Replay of ${request.replayOf}\n`);
  const runs = list(delivery.runs);
  if (runs.length === 0) out(`Fired: ${list(request.triggers).map(String).join(', ') || 'nothing'} (runs not recorded)\n`);
  for (const run of runs) {
    out(`Trigger ${text(run.trigger)} (run ${text(run.runId)}):\n`);
    const actions = list(run.actions);
    if (actions.length === 0) out('  no action has finished yet\n');
    for (const action of actions) {
      const detail = (action.detail ?? {}) as Json;
      const facts = [
        typeof detail.exitCode === 'number' ? `exit ${detail.exitCode}` : '',
        typeof detail.httpStatus === 'number' ? `HTTP ${detail.httpStatus}` : '',
        typeof detail.jobId === 'string' ? `job ${detail.jobId}` : '',
        `${String(action.attempts)} attempt${action.attempts === 1 ? '' : 's'}`,
      ].filter(Boolean);
      out(`  action ${String(action.actionIndex)} (${text(action.type)}): ${text(action.status)}, ${facts.join(', ')}\n`);
      if (typeof action.error === 'string') out(`    error: ${terminalField(action.error)}\n`);
      if (typeof detail.output === 'string' && detail.output !== '') out(`    output:\n${indent(detail.output, '      ')}\n`);
    }
  }
  out(`Request:\n${indent(JSON.stringify(parsedRequest(text(request.request)), null, 2), '  ')}\n`);
};

/** `deliveries replay ID`: fires the triggers of a stored request again, with that request. */
export const replayDelivery = async ({ positionals }: ParsedCommand, io: CliIo): Promise<number> => {
  const [id] = positionals as [string];
  const outcome = await onDeliveries(
    io,
    {
      server: (client) => client.replay(id),
      direct: async (container) => {
        const { TOKENS } = await import('../container/tokens.js');
        return asJson(await (await container.getAsync(TOKENS.FireTriggers)).replay(id));
      },
    },
    true,
  );
  // Trigger names stored before names were checked may hold control characters: printed escaped.
  const fired = list(outcome.fired).map((name) => terminalField(String(name)));
  const skipped = list(outcome.skipped).map((name) => terminalField(String(name)));
  // Each with its reason; a server from before reasons were given names the triggers only.
  const why = list(outcome.skippedWhy).map((skip) => `${terminalField(text(skip.trigger))} (${terminalField(text(skip.reason))})`);
  const skippedLine =
    skipped.length === 0
      ? ''
      : why.length === skipped.length
        ? `; skipped: ${why.join(', ')}`
        : `; skipped (no longer configured, or disabled): ${skipped.join(', ')}`;
  if (typeof outcome.requestId !== 'string')
    throw new CliFailure(`Nothing replayed: no trigger of ${id} would fire for it now${skippedLine.replace(';', ' —')}`);
  io.out.write(`Replayed ${id} as ${outcome.requestId}: fired ${fired.join(', ')}${skippedLine}\n`);
  return 0;
};

const indent = (value: string, by: string): string =>
  value
    .split('\n')
    .map((line) => `${by}${line}`)
    .join('\n');

/** The stored request text as JSON (it is stored as JSON text), its numbers as sent (parseExactJson); as it is when it is not. */
const parsedRequest = (stored: string): unknown => {
  try {
    return parseExactJson(stored);
  } catch {
    return stored;
  }
};
