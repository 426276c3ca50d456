import { isCredentialHeader } from '../templates/request-snapshot.js';
import { TOKEN } from '../templates/template-tokens.js';
import type { Trigger, TriggerAction } from './trigger.js';

/** A trigger that reads a header its request never holds (a credential: request-snapshot.ts). */
export interface WithheldHeaderWarning {
  readonly trigger: string;
  /** As in problem lines: `actions[0].job`, `actions[1].command`, `when.headers.x-hub-signature-256`. */
  readonly field: string;
  /** Lower-case, as snapshots name headers. */
  readonly header: string;
  /** One line for the operator: file, trigger, field, header and why. */
  readonly message: string;
}

/** Why a header is withheld, and what follows for the field that names it. */
const why = (header: string, consequence: string): string =>
  `names the header ${header}, which a trigger never sees: it is treated as a credential and never given to templates or "when", so ${consequence} (docs/triggers.md, "Template tokens")`;

/** The header a token's or a `when`'s path names (`.X-Api-Key.0` → `x-api-key`); undefined for the whole `{{headers}}`. */
const headerOf = (path: string): string | undefined => (path === '' ? undefined : path.slice(1).split('.')[0].toLowerCase());

/** The template an action renders with request values: an agent's `job`, a command's `command` (a webhook action renders none). */
const templateOf = (action: TriggerAction): { field: string; text: string } | undefined =>
  action.type === 'agent' ? { field: 'job', text: action.job } : action.type === 'command' ? { field: 'command', text: action.command } : undefined;

/**
 * Warnings (not problems: the file is valid) about triggers that read a header no request
 * snapshot holds: one isCredentialHeader names, or one of `moreCredentials` (lower-case: the
 * channels'). Such a token always renders as the empty string and such a `when` test never
 * passes, silently. One warning per trigger, field and header, in file order; `triggers` are a
 * valid file's (each entry's index in the file is its index here), `file` names it as shown.
 */
export const withheldHeaderWarnings = (triggers: readonly Trigger[], file: string, moreCredentials: readonly string[] = []): WithheldHeaderWarning[] => {
  const withheld = (header: string | undefined): header is string => header !== undefined && (isCredentialHeader(header) || moreCredentials.includes(header));
  const warnings: WithheldHeaderWarning[] = [];
  triggers.forEach((trigger, index) => {
    const where = `${file}: trigger #${index} "${trigger.name}"`;
    const seen = new Set<string>();
    const warn = (field: string, header: string, message: string): void => {
      const key = `${field}\n${header}`;
      if (seen.has(key)) return;
      seen.add(key);
      warnings.push({ trigger: trigger.name, field, header, message: `${where}: ${field}: ${message}` });
    };
    for (const condition of trigger.when ?? []) {
      const header = condition.source === 'headers' ? headerOf(condition.field) : undefined;
      if (withheld(header)) warn(`when.${condition.path}`, header, why(header, 'this test never passes and the trigger never fires'));
    }
    trigger.actions.forEach((action, i) => {
      const template = templateOf(action);
      if (template === undefined) return;
      for (const [token, source, path] of template.text.matchAll(new RegExp(TOKEN.source, 'g'))) {
        const header = source === 'headers' ? headerOf(path) : undefined;
        if (withheld(header)) warn(`actions[${i}].${template.field}`, header, `${token} ${why(header, 'the token always renders as the empty string')}`);
      }
    });
  });
  return warnings;
};
