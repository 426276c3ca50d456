import type { Token, Tokens } from 'marked';
import { isMisleadingLink } from '../../../domain/messaging/misleading-link.js';
import { decodeNumericReferences } from './character-references.js';

/**
 * A link's label as a reader takes it in, from marked's token tree: text with its character
 * references decoded, escapes and code spans as their text, emphasis, strike-through and nested
 * links as their inner text. Telegram renders the label so; Slack shows it as typed, but a
 * reader reads `github\.com`, `github&#46;com` and `**github**.com` as github.com all the same.
 */
export const visibleText = (tokens: readonly Token[] | undefined): string =>
  (tokens ?? [])
    .map((token): string => {
      switch (token.type) {
        case 'text':
          return 'tokens' in token && token.tokens !== undefined && token.tokens.length > 0 ? visibleText(token.tokens) : decodeNumericReferences(token.raw);
        case 'escape':
        case 'codespan':
          return token.text;
        case 'strong':
        case 'em':
        case 'del':
        case 'link':
        case 'image':
          return visibleText(token.tokens);
        case 'br':
          return '\n';
        default:
          return token.raw;
      }
    })
    .join('');

/** Whether a link or image would mislead, judged on its label as typed and as read (isMisleadingLink); both channels show such a link as typed. */
export const misleads = (token: Tokens.Link | Tokens.Image, href: string): boolean =>
  isMisleadingLink(token.text, href) || isMisleadingLink(visibleText(token.tokens), href);
