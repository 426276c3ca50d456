import { DomainError } from '../errors/domain-error.js';

/** What a caller asks for when creating a job; provider and model are optional overrides. */
export interface JobRequest {
  readonly job: string;
  readonly llmProvider?: string;
  readonly llmModel?: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A job's texts are stored in text columns, which cannot hold U+0000: a field holding one is
 * refused, naming the field, rather than failing later as "Failed to create job".
 * (Lone surrogates never get here: the HTTP edge replaces them with U+FFFD, see docs/api.md.)
 */
const nulIn = (field: string, value: string): DomainError | undefined =>
  value.includes('\0') ? new DomainError('invalid_input', `Field ${field} must not contain NUL characters (U+0000)`) : undefined;

/** Returns `value`; throws the 400 for a text with a NUL in it (see nulIn). */
export const refuseNul = (field: string, value: string): string => {
  const problem = nulIn(field, value);
  if (problem !== undefined) throw problem;
  return value;
};

/** The longest model name a job keeps (its column holds 200 characters). */
export const MAX_MODEL_LENGTH = 200;

/**
 * Control characters (C0, DEL and C1: U+0085 NEL is a line break too, U+009B a terminal's CSI)
 * and Unicode's line and paragraph separators (U+2028, U+2029), which a reader of lines may
 * break a line at.
 */
const CONTROL_OR_LINE_BREAK = /[\p{Cc}\u2028\u2029]/u;

/**
 * What would take a model name out of its place in a URL: Google's API names the model in the
 * request's path (`…/models/<model>:generateContent`), so `x/../../other?alt=1#` made the gateway
 * post, with its provider key, to `/other?alt=1` on the provider's host. `%` would be decoded
 * into the same; a backslash is a `/` to URL parsers; whitespace is in no model's name.
 */
const URL_ESCAPE = /[?#%\\\s]/;

/**
 * The 400 for a model name a job cannot take: longer than it keeps, or holding a control
 * character (a line break would start a line of its own in the job file a code host's
 * workflow reads); undefined when it is fine.
 */
export const modelProblem = (model: string | undefined): DomainError | undefined => {
  if (model === undefined) return undefined;
  if (model.length > MAX_MODEL_LENGTH) return new DomainError('invalid_input', `Field llm_model must be at most ${MAX_MODEL_LENGTH} characters`);
  if (CONTROL_OR_LINE_BREAK.test(model))
    return new DomainError('invalid_input', 'Field llm_model must not contain control characters (line breaks, tabs, NUL)');
  if (URL_ESCAPE.test(model) || model.split('/').some((part) => part === '' || part === '.' || part === '..'))
    return new DomainError(
      'invalid_input',
      'Field llm_model must be a model name: no "?", "#", "%", "\\" or whitespace, and no empty, "." or ".." part between "/" (the model is a part of the provider\'s URL)',
    );
  return undefined;
};

/** An optional text field: absent (undefined or null), a non-empty string without NUL, or the error saying why not. */
const optionalText = (fields: Record<string, unknown>, name: 'llm_provider' | 'llm_model'): string | undefined | DomainError => {
  const value = fields[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.trim() === '') return new DomainError('invalid_input', `Field ${name} must be a non-empty string`);
  return nulIn(name, value) ?? value;
};

/**
 * Validates a create-job body (SPEC 4.1, 7): `job` must be a non-empty string without NUL.
 * Returns the 400's error instead of throwing it: V8 never optimizes a function whose every call
 * ends in a throw (its tier-up counts calls that return), so a caller flooded with bad bodies
 * would answer each from the bytecode interpreter (bench/README.md, "Measurements behind the code").
 */
export const readJobRequest = (body: unknown): JobRequest | DomainError => {
  const fields = isRecord(body) ? body : {};
  const job = fields.job;
  if (typeof job !== 'string' || job.trim() === '') return new DomainError('invalid_input', 'Missing job field');
  const nul = nulIn('job', job);
  if (nul !== undefined) return nul;
  const llmProvider = optionalText(fields, 'llm_provider');
  if (llmProvider instanceof DomainError) return llmProvider;
  const llmModel = optionalText(fields, 'llm_model');
  if (llmModel instanceof DomainError) return llmModel;
  const badModel = modelProblem(llmModel);
  if (badModel !== undefined) return badModel;
  return { job, llmProvider, llmModel };
};

/** readJobRequest, throwing its error. */
export const parseJobRequest = (body: unknown): JobRequest => {
  const read = readJobRequest(body);
  if (read instanceof DomainError) throw read;
  return read;
};
