import { isRawJson, rawJsonText } from './exact-json.js';
import type { RequestSnapshot } from './request-snapshot.js';

/** `{{body}}`, `{{body.a.0.b}}`, `{{query}}`, `{{query.name}}`, `{{headers}}`, `{{headers.name}}`. */
export const TOKEN = /\{\{\s*(body|query|headers)((?:\.[^\s.{}]+)*)\s*\}\}/g;
const ANY_TOKEN = /\{\{[^{}]*\}\}/g;

/** Tokens that are not one of the SPEC 2.4 forms, for the trigger file's validation. */
export const findUnknownTokens = (template: string): string[] => (template.match(ANY_TOKEN) ?? []).filter((token) => token.replace(TOKEN, '') !== '');

/**
 * Each `{{` no `}}` closes (`./deploy.sh {{body.ref`), shown with what follows it up to the next
 * space (at most 40 characters): it would be sent as written, never as a value.
 */
export const findUnclosedTokens = (template: string): string[] => template.replace(ANY_TOKEN, '').match(/\{\{[^\s{}]{0,40}/g) ?? [];

/** A field of an object or an item of an array; a number kept as its text (exact-json.ts) has none. */
const own = (value: unknown, key: string): unknown => {
  if (Array.isArray(value)) return /^\d+$/.test(key) ? value[Number(key)] : undefined;
  if (typeof value === 'object' && value !== null && !isRawJson(value) && Object.hasOwn(value, key)) return (value as Record<string, unknown>)[key];
  return undefined;
};

/**
 * The value at a token's path (`path` is the dotted part with its leading dot, `.a.0.b`, or empty
 * for the whole source); header names are matched in any case. Undefined when missing.
 */
export const fieldValue = (source: string, path: string, request: RequestSnapshot): unknown => {
  const root: unknown = source === 'body' ? request.body : source === 'query' ? request.query : request.headers;
  const named = path === '' ? [] : path.slice(1).split('.');
  const segments = source === 'headers' ? named.map((segment) => segment.toLowerCase()) : named;
  return segments.reduce<unknown>((current, segment) => own(current, segment), root);
};

/**
 * The text a token stands for: a missing field is the empty string, a string is itself,
 * anything else (numbers, booleans, objects, arrays, null) is its JSON — a number kept as its
 * text (a 64-bit id, exact-json.ts) is that text, digit for digit, alone or inside an object.
 */
export const tokenValue = (source: string, path: string, request: RequestSnapshot): string => {
  const value = fieldValue(source, path, request);
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  return isRawJson(value) ? rawJsonText(value) : JSON.stringify(value);
};

/** Replaces every token with its value, unescaped: for agent prompts, never for shell commands. */
export const renderText = (template: string, request: RequestSnapshot): string =>
  template.replace(TOKEN, (_token, source: string, path: string) => tokenValue(source, path, request));
