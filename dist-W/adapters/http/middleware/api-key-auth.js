/** SPEC 5.2: the `x-api-key` header must match a stored key; the key id goes to the log line. */
export const apiKeyAuth = (authenticate) => (ctx, next) => {
    const header = ctx.req.headers['x-api-key'];
    const presented = Array.isArray(header) ? undefined : header;
    // A key the repository knows is checked without a promise; any other is looked up.
    const known = authenticate.known(presented);
    if (known !== undefined) {
        ctx.state.apiKeyId = known.id;
        return next();
    }
    return authenticate.execute(presented).then((key) => {
        ctx.state.apiKeyId = key.id;
        return next();
    });
};
//# sourceMappingURL=api-key-auth.js.map