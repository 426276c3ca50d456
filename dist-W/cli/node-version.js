/**
 * The oldest Node.js the service and the CLI run on — package.json's `engines.node` says the
 * same (a unit test keeps the two equal). This module imports nothing: the entry points load
 * it, and only it, before everything else.
 */
export const MINIMUM_NODE = '22.12.0';
const parts = (version) => version
    .replace(/^v/, '')
    .split(/[.-]/)
    .slice(0, 3)
    .map((part) => Number.parseInt(part, 10) || 0);
/** True when `version` (`22.12.0`, `v20.20.2`) is `minimum` or newer. */
export const isSupportedNode = (version, minimum = MINIMUM_NODE) => {
    const have = parts(version);
    const need = parts(minimum);
    for (let i = 0; i < 3; i++) {
        if ((have[i] ?? 0) !== (need[i] ?? 0))
            return (have[i] ?? 0) > (need[i] ?? 0);
    }
    return true;
};
/** The one line an unsupported Node.js gets. */
export const unsupportedNodeMessage = (version, execPath) => `agent-gateway needs Node.js ${MINIMUM_NODE} or newer, but ${execPath} is ${version.startsWith('v') ? version : `v${version}`}; install a newer Node.js (see README.md)`;
/**
 * Ends the process with that line on stderr and exit code 1 when this Node.js is too old.
 * Call it before loading anything else: the rest may not even load on an older version.
 */
export const refuseUnsupportedNode = () => {
    if (isSupportedNode(process.versions.node))
        return;
    process.stderr.write(`${unsupportedNodeMessage(process.versions.node, process.execPath)}\n`);
    process.exit(1);
};
//# sourceMappingURL=node-version.js.map