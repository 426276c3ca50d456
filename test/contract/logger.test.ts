import { createPino, PinoLogger } from '../../src/adapters/logging/pino-logger.js';
import { RecordingLogger } from '../fakes/recording-logger.js';
import { describeLoggerContract, type Level, type LogLine } from './logger.contract.js';

const PINO_LEVELS: Record<number, Level> = { 20: 'debug', 30: 'info', 40: 'warn', 50: 'error' };

describeLoggerContract('pino, as JSON lines', () => {
  const written: string[] = [];
  const logger = new PinoLogger(createPino('debug', { write: (line: string) => void written.push(line) }));
  return {
    logger,
    lines: () =>
      written.map((text): LogLine => {
        const { level, msg, time: _time, service: _service, pid: _pid, hostname: _hostname, ...fields } = JSON.parse(text) as Record<string, unknown>;
        return { level: PINO_LEVELS[level as number], message: String(msg), fields };
      }),
  };
});

describeLoggerContract('the recording logger the unit tests read', () => {
  const logger = new RecordingLogger();
  return { logger, lines: () => logger.entries.map(({ level, message, fields }) => ({ level, message, fields: fields as Record<string, unknown> })) };
});
