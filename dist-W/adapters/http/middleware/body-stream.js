/*
 * What the body middlewares (jsonBody, formBody) do to the request stream before
 * koa-bodyparser reads it.
 */
/** Whether the request announces a body (an empty Content-Length is none). */
export const hasBody = (headers) => headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');
/**
 * Content codings are case-insensitive and `x-gzip` is `gzip` (RFC 9110 8.4.1); the
 * decompressor behind koa-bodyparser (inflation) knows only the lower-case names.
 */
const normalizeContentEncoding = (headers) => {
    const given = headers['content-encoding'];
    if (given === undefined)
        return;
    const coding = given.trim().toLowerCase();
    headers['content-encoding'] = coding === 'x-gzip' ? 'gzip' : coding;
};
/**
 * For a compressed body, inflation pipes the request into a decompressor that raw-body reads;
 * a pipe does not pass on the client going away, so raw-body would wait for the rest forever
 * (no answer, no log line). This hands the decompressor the request's `aborted`, which
 * raw-body turns into its own "request aborted" failure (400). A no-op once the body is read.
 */
const forwardAbortToDecompressor = (req) => {
    if ((req.headers['content-encoding'] ?? 'identity') === 'identity')
        return;
    const pipe = req.pipe.bind(req);
    req.pipe = ((destination, options) => {
        req.once('close', () => {
            if (!req.complete)
                destination.emit('aborted');
        });
        return pipe(destination, options);
    });
};
/** Readies the request for koa-bodyparser: content coding normalized, a cut-off compressed body noticed. */
export const prepareBodyStream = (req) => {
    normalizeContentEncoding(req.headers);
    forwardAbortToDecompressor(req);
};
//# sourceMappingURL=body-stream.js.map