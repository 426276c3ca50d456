import type { Approval } from '../../domain/approvals/approval.js';
import { isDomainError } from '../../domain/errors/domain-error.js';
import type { ApprovalStore } from '../../ports/approval-store.js';
import type { Logger } from '../../ports/logger.js';
import { type ChatText, type ChatTextPart, type ChoiceMade, chatTextString } from '../../ports/messaging-channel.js';
import type { ChatChannel, MessagingChannels } from '../messaging/messaging-channels.js';
import { type DecideApproval, whyNothingRuns } from './decide-approval.js';

const BUTTON = /^agw-(approve|deny):([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;
/** The note approvalSummary writes where it leaves part of a value or of a prompt out. */
const LEFT_OUT = /\[… \d+ characters left out …\]/;

/** The admin UI's page where every approval is shown whole and can be decided. */
export const APPROVALS_PAGE = '/settings/approvals';

const stampText = (date: Date): string => `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** Where the approver finds the Approvals page: under PUBLIC_URL when it is set, else the page's path on the gateway's address. */
const approvalsPage = (publicUrl: string | undefined): string =>
  publicUrl === undefined ? `${APPROVALS_PAGE} on the gateway's address` : `${publicUrl.replace(/\/+$/, '')}${APPROVALS_PAGE}`;

/** The heading: the trigger's name and the path that fired it are data (verbatim, inline). */
const heading = (approval: Approval): ChatText => [
  { text: 'Approval needed: trigger "' },
  { text: approval.trigger, verbatim: 'inline' },
  { text: `", action ${approval.actionIndex} (${approval.actionType}), fired by ` },
  { text: `/api${approval.watchPath}`, verbatim: 'inline' },
  { text: '.' },
];

const PARAGRAPH: ChatTextPart = { text: '\n\n' };

/**
 * What an approval chat is sent: the text (`parts`, its data marked verbatim: the request's values
 * in the summary, which the chat must show inert — no link, mention or command to press — and
 * `text`, the same as one string), and whether it carries the Approve and Deny buttons.
 */
export interface ApprovalMessage {
  readonly parts: ChatText;
  readonly text: string;
  readonly buttons: boolean;
}

const message = (paragraphs: readonly ChatText[], buttons: boolean): ApprovalMessage => {
  const parts = paragraphs.flatMap((paragraph, i) => (i === 0 ? paragraph : [PARAGRAPH, ...paragraph]));
  return { parts, text: chatTextString(parts), buttons };
};

/**
 * The question as a chat shows it: which trigger and action, the action as it would run (its
 * summary whole: each command value, an agent job's prompt, already cut there to its beginning
 * and end around a note of what was left out — see approvalSummary), until when. Never cut
 * further: a cut here would hide the end of what runs (or whole values of a command) from the
 * person pressing Approve. When the question is longer than `maxLength` (the platform's limit
 * for one message), the chat gets no question and no buttons, only a pointer to the admin
 * UI's Approvals page, where the action shows whole and is decided.
 */
export const approvalMessage = (approval: Approval, maxLength: number, publicUrl?: string): ApprovalMessage => {
  const page = approvalsPage(publicUrl);
  const until = `Decide before ${stampText(approval.expiresAt)}; after that it never runs.`;
  const question = message(
    [
      heading(approval),
      [{ text: approval.summary, verbatim: 'block' }],
      [{ text: `${until} The request and the whole action are on the admin UI's Approvals page (${page}).` }],
    ],
    true,
  );
  // A summary that leaves part of a value or of the prompt out (approvalSummary) hides it from
  // the chat too: only the page shows the request whole. Request text that merely looks like the
  // note counts as well, which only ever sends the decision to the page.
  const tooLong = question.text.length > maxLength;
  if (!tooLong && !LEFT_OUT.test(approval.summary)) return question;
  const why = tooLong
    ? `The action is too long to review in this chat (${approval.summary.length} characters as the Approvals page shows it)`
    : 'Parts of the action are left out of this message (its longest values or prompt are shown by their beginning and end)';
  return message(
    [
      heading(approval),
      [{ text: `${why}, so it cannot be approved here: review and decide it on the admin UI's Approvals page (${page}).` }],
      [{ text: until }],
    ],
    false,
  );
};

/**
 * Asks the chats configured for approvals (a channel's `approvalChatId`, where its platform has
 * buttons) with Approve and Deny — or, for an action too long for one of its messages, tells
 * them to decide in the admin UI (approvalMessage). A chat that cannot be asked is logged; the
 * approval stands in the admin UI whatever happens here.
 */
export class AnnounceApproval {
  constructor(
    private readonly channels: MessagingChannels,
    private readonly logger: Logger,
    /** PUBLIC_URL, the service's public address: the admin UI's page is linked under it. */
    private readonly publicUrl?: string,
  ) {}

  async execute(approval: Approval): Promise<void> {
    await Promise.all(
      this.channels.all.map(async ({ platform, credentials, settings }) => {
        if (settings.approvalChatId === undefined || platform.buttons === undefined) return;
        try {
          const token = await credentials.current();
          if (token === undefined) return;
          const target = { chatId: settings.approvalChatId };
          const message = approvalMessage(approval, platform.maxMessageLength, this.publicUrl);
          // Without buttons too through `ask`: its data (the trigger's name, the path) are shown inert there.
          const buttons = message.buttons
            ? [
                { label: 'Approve', data: `agw-approve:${approval.id}` },
                { label: 'Deny', data: `agw-deny:${approval.id}` },
              ]
            : [];
          await platform.buttons.ask(token, target, message.parts, buttons);
        } catch (error) {
          this.logger.warn({ err: error, channel: platform.id, approvalId: approval.id }, 'could not ask the approval chat; the admin UI still can decide');
        }
      }),
    );
  }
}

/** The approval store that, for each approval it stores anew, asks the approval chats (AnnounceApproval). */
export class AnnouncingApprovalStore implements ApprovalStore {
  constructor(
    private readonly inner: ApprovalStore,
    private readonly announce: Pick<AnnounceApproval, 'execute'>,
  ) {}

  async request(approval: Approval): Promise<Approval> {
    const stored = await this.inner.request(approval);
    // Asked before (the same run and action, a task run again): no second message.
    if (stored.id === approval.id) await this.announce.execute(stored);
    return stored;
  }

  decide(...args: Parameters<ApprovalStore['decide']>) {
    return this.inner.decide(...args);
  }
  expireDue(...args: Parameters<ApprovalStore['expireDue']>) {
    return this.inner.expireDue(...args);
  }
  find(id: string) {
    return this.inner.find(id);
  }
  list(...args: Parameters<ApprovalStore['list']>) {
    return this.inner.list(...args);
  }
  deleteOlderThan(cutoff: Date, limit: number) {
    return this.inner.deleteOlderThan(cutoff, limit);
  }
}

/**
 * A button of an approval pressed in a chat: decided as in the admin UI, recorded with who pressed
 * it, and answered in the chat. Only the channel's approval chat decides; every other press, and a
 * late or second one, is answered with why nothing happened.
 */
export class DecideApprovalInChat {
  constructor(
    private readonly decide: Pick<DecideApproval, 'execute'>,
    private readonly logger: Logger,
  ) {}

  async execute(channel: ChatChannel, choice: ChoiceMade): Promise<void> {
    const { platform, settings } = channel;
    const buttons = platform.buttons;
    const token = await channel.credentials.current();
    if (buttons === undefined || token === undefined) return;
    const match = BUTTON.exec(choice.data);
    // The platform's id of the person too: a handle can be taken up by someone else once given
    // up (Telegram), or be the same as a person's of another organization in a shared channel
    // (Slack Connect); the record of who decided must tell them apart.
    const who = `${platform.title} ${choice.userName === undefined ? choice.userId : `${choice.userName} (${choice.userId})`}`;
    let outcome: string;
    if (match === null) outcome = 'This button is not one of the gateway’s.';
    else if (settings.approvalChatId === undefined || choice.chatId !== settings.approvalChatId)
      outcome = `Approvals are decided in the approval chat only (${settings.variables.approvalChat ?? 'its setting'}).`;
    else {
      const decision = match[1] === 'approve' ? 'approved' : 'denied';
      try {
        const decided = await this.decide.execute({ id: match[2], decision, by: who });
        const why = whyNothingRuns(decided);
        outcome =
          decision === 'denied'
            ? `Denied by ${who}: trigger "${decided.trigger}", action ${decided.actionIndex} and those after it will not run.`
            : why === undefined
              ? `Approved by ${who}: trigger "${decided.trigger}", action ${decided.actionIndex} runs now.`
              : `Approved by ${who}, but ${why}: nothing runs.`;
      } catch (error) {
        if (!isDomainError(error) || (error.code !== 'conflict' && error.code !== 'not_found')) throw error;
        outcome = error.message;
      }
    }
    this.logger.info({ channel: platform.id, chatId: choice.chatId, userId: choice.userId, outcome }, 'approval button pressed');
    // The decision is stored: a press the chat cannot be told about is not taken in again (a
    // second time it would only be refused as decided already, and refused to be told again).
    // The chat is told after the platform's delivery is answered: its calls (three on Telegram,
    // each retried through rate limits) would hold the delivery open for as long, and the
    // platform holds back the chat's next updates meanwhile (Slack gives up after 3 s).
    const telling = buttons
      .settle(token, choice, outcome)
      .catch((error: unknown) =>
        this.logger.warn(
          { channel: platform.id, chatId: choice.chatId, err: error },
          'approval button press could not be answered in the chat; the decision stands',
        ),
      )
      .finally(() => this.#telling.delete(telling));
    this.#telling.add(telling);
  }

  readonly #telling = new Set<Promise<void>>();

  /** Resolves once every chat being told of a press so far has been (or could not be). */
  async told(): Promise<void> {
    while (this.#telling.size > 0) await Promise.all([...this.#telling]);
  }
}
