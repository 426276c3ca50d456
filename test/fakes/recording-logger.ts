import type { Logger } from '../../src/ports/logger.js';

export interface LogEntry {
  level: 'debug' | 'info' | 'warn' | 'error';
  fields: object;
  message: string;
}

export class RecordingLogger implements Logger {
  constructor(
    readonly entries: LogEntry[] = [],
    private readonly bound: object = {},
  ) {}
  debug(fields: object, message: string): void {
    this.entries.push({ level: 'debug', fields: { ...this.bound, ...fields }, message });
  }
  info(fields: object, message: string): void {
    this.entries.push({ level: 'info', fields: { ...this.bound, ...fields }, message });
  }
  warn(fields: object, message: string): void {
    this.entries.push({ level: 'warn', fields: { ...this.bound, ...fields }, message });
  }
  error(fields: object, message: string): void {
    this.entries.push({ level: 'error', fields: { ...this.bound, ...fields }, message });
  }
  child(fields: object): Logger {
    return new RecordingLogger(this.entries, { ...this.bound, ...fields });
  }
}
