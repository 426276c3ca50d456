/**
 * Headers that carry credentials on any endpoint: never kept in a snapshot, so never stored,
 * rendered or forwarded. Each messaging channel adds its own (MessagingChannel.credentialHeaders).
 */
export const CREDENTIAL_HEADERS = ['x-api-key', 'authorization', 'proxy-authorization', 'cookie', 'x-hub-signature', 'x-hub-signature-256'];
/**
 * Builds a snapshot from raw request parts, lower-casing header names and dropping
 * credentials: CREDENTIAL_HEADERS and `moreCredentials` (lower-case; the channels').
 */
export const snapshotRequest = (body, query, headers, moreCredentials = []) => {
    const keptHeaders = {};
    for (const [name, value] of Object.entries(headers)) {
        const lower = name.toLowerCase();
        if (value === undefined || CREDENTIAL_HEADERS.includes(lower) || moreCredentials.includes(lower))
            continue;
        keptHeaders[lower] = typeof value === 'string' ? value : value.join(', ');
    }
    const keptQuery = {};
    for (const [name, value] of Object.entries(query))
        if (value !== undefined)
            keptQuery[name] = value;
    return { body, query: keptQuery, headers: keptHeaders };
};
//# sourceMappingURL=request-snapshot.js.map