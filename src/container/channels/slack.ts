import { z } from 'zod';
import { SLACK } from '../../adapters/messaging/slack/slack.js';
import type { ChatChannelSettings } from '../../application/messaging/messaging-channels.js';
import { environment, list, optionalText, secret, url } from '../config/fields.js';
import type { ChannelBinding } from './channel-binding.js';

export interface SlackConfig extends ChatChannelSettings {
  /** The app's bot token (`xoxb-…`). Never logged. */
  readonly botToken: string | undefined;
  /** `https://slack.com/api`, or a fake in tests. */
  readonly apiUrl: string;
}

const schema = environment().pipe(
  z
    .object({
      SLACK_BOT_TOKEN: optionalText().superRefine((value, ctx) => {
        if (value !== undefined && !/^xox[a-z]-[A-Za-z0-9-]+$/.test(value)) {
          ctx.addIssue({ code: 'custom', message: 'is not a Slack bot token (xoxb-…, from the app\u2019s "OAuth & Permissions" page)' });
        }
      }),
      SLACK_SIGNING_SECRET: secret(),
      SLACK_API_URL: url('https://slack.com/api'),
      SLACK_ALLOWED_CHANNEL_IDS: list((id) =>
        /^[A-Z][A-Z0-9]{2,}$/.test(id) ? undefined : `"${id}" is not a Slack channel id (such as C0123ABCDEF, or D… for a direct message)`,
      ),
      SLACK_APPROVAL_CHANNEL_ID: optionalText().superRefine((value, ctx) => {
        if (value !== undefined && !/^[A-Z][A-Z0-9]{2,}$/.test(value))
          ctx.addIssue({ code: 'custom', message: `"${value}" is not a Slack channel id (such as C0123ABCDEF)` });
      }),
    })
    .superRefine((env, ctx) => {
      if (env.SLACK_BOT_TOKEN !== undefined && env.SLACK_SIGNING_SECRET === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['SLACK_SIGNING_SECRET'],
          message: 'required when SLACK_BOT_TOKEN is set (the app\u2019s signing secret, from its "Basic Information" page: events are refused without it)',
        });
      }
    })
    .transform(
      (env): SlackConfig => ({
        botToken: env.SLACK_BOT_TOKEN,
        webhookSecret: env.SLACK_SIGNING_SECRET,
        apiUrl: env.SLACK_API_URL,
        allowedChatIds: new Set(env.SLACK_ALLOWED_CHANNEL_IDS),
        ...(env.SLACK_APPROVAL_CHANNEL_ID === undefined ? {} : { approvalChatId: env.SLACK_APPROVAL_CHANNEL_ID }),
        variables: {
          botToken: 'SLACK_BOT_TOKEN',
          webhookSecret: 'SLACK_SIGNING_SECRET',
          allowedChats: 'SLACK_ALLOWED_CHANNEL_IDS',
          approvalChat: 'SLACK_APPROVAL_CHANNEL_ID',
        },
      }),
    ),
);

/**
 * Slack (the Events API and the Web API). Its token and signing secret are set in variables
 * only: Slack is told the events' address in the app's settings, so there is no registration.
 */
export const slackBinding: ChannelBinding<'slack', SlackConfig> = {
  id: SLACK.id,
  registers: SLACK.registers,
  credentialHeaders: SLACK.credentialHeaders,
  chatIdFields: SLACK.chatIdFields,
  webhookCredentialFields: SLACK.webhookCredentialFields,
  // Slack signs the body (X-Slack-Signature) and sends no secret header; it posts its events as
  // plain JSON and its interactivity as a plain form, never compressed: a compressed body is
  // refused before it is read, or anyone could have a kilobyte of gzip inflate to BODY_LIMIT.
  webhookCallerKnownAfterBody: true,
  schema,
  async create(config) {
    const [{ SlackChannel }, { EnvironmentBotTokenStore }] = await Promise.all([
      import('../../adapters/messaging/slack/slack-channel.js'),
      import('../../adapters/secrets/environment-bot-token-store.js'),
    ]);
    return {
      platform: new SlackChannel({ apiUrl: config.apiUrl, attempts: 4, backoffMs: 1000, maxRetryAfterMs: 60_000, timeoutMs: 30_000 }),
      credentials: new EnvironmentBotTokenStore(config.botToken),
      settings: config,
    };
  },
};
