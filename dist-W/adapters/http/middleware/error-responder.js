import { answerFor } from '../error-status.js';
/**
 * Turns a failure into `{error}` by the one error table (see answerFor): 4xx keep their message,
 * a 500 says `Internal server error` (or SPEC 7's fixed text) and its detail goes to the
 * request's log line only. The request log answers every failure with it; a route answers its
 * handler's failure with it, close to where it is thrown.
 */
export const respondWithError = (ctx, error) => {
    const answer = answerFor(error);
    ctx.status = answer.status;
    ctx.body = { error: answer.message };
    if (answer.logged !== undefined)
        ctx.state.error = answer.logged;
};
//# sourceMappingURL=error-responder.js.map