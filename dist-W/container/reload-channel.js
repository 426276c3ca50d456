/** The NOTIFY channel on which `agent-gateway reload` asks every replica to reload its configuration files. */
export const RELOAD_CHANNEL = 'agw_reload';
//# sourceMappingURL=reload-channel.js.map