import { createHash } from 'node:crypto';
import { aiFailureReason, AiCallFailed } from '../../../domain/ai/ai-call-failed.js';
import { field, NOTICE, seeOther, showPage, signedIn, type AdminRouter, type AdminTools } from './admin-http.js';
import { chatFailureMessage } from './chat-failures.js';
import { setFlash } from './flash.js';

/**
 * The web chat's thread: one per admin session (a new login starts a new one), named by 16 hex
 * digits of a hash of the session's token — never by part of the token itself, which is stored
 * only as a digest (the thread's name is stored with every turn).
 */
export const webThread = (token: string): string => `web:${createHash('sha256').update(`agw web chat\0${token}`).digest('hex').slice(0, 16)}`;

/** The web chat: the same agent as the chat channel, answered before the redirect back to the page. */
export const registerChatPages = (router: AdminRouter, tools: AdminTools): void => {
  const { overview, chat, logger } = tools.deps;

  router.get('/settings/chat', async (ctx) => {
    const turns = (await overview.conversation(webThread(signedIn(ctx).token))).map((turn) => ({
      role: turn.role,
      who: turn.role === 'user' ? 'You' : 'Agent',
      text: turn.text,
    }));
    showPage(ctx, tools, 'chat', 'Chat', 'chat', { turns });
  });

  router.post('/settings/chat', tools.form, async (ctx) => {
    const { token, session } = signedIn(ctx);
    const message = field(ctx, 'message').trim();
    if (message === '') {
      setFlash(ctx, NOTICE, session.csrfToken, { kind: 'error', text: 'Write a message first.' });
      return seeOther(ctx, '/settings/chat');
    }
    try {
      await chat.execute({ threadId: webThread(token), text: message, images: [], metadata: { userId: 'web', chatTitle: 'Web chat' } });
    } catch (error) {
      const requestId = String(ctx.state.requestId ?? 'unknown');
      const reason = aiFailureReason(error);
      // The cause goes to the log with the request id the page names; the page gets a safe text.
      logger.error(
        { reqId: requestId, reason, httpStatus: error instanceof AiCallFailed ? error.httpStatus : undefined, err: error },
        'web chat message could not be answered',
      );
      setFlash(ctx, NOTICE, session.csrfToken, { kind: 'error', text: chatFailureMessage(error, requestId) });
    }
    seeOther(ctx, '/settings/chat');
  });
};
