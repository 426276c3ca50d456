/** The NOTIFY channel on which `agent-gateway reload` asks every replica to reload its configuration files. */
export const RELOAD_CHANNEL = 'agw_reload';

/**
 * The listener of RELOAD_CHANNEL: a notification reloads; so does the connection coming back
 * after it was lost (not its first opening), since a `reload` sent meanwhile was not heard, and
 * a replica would otherwise keep its old triggers until the next one.
 */
export const reloadListener = (reload: (reason: string) => void): { onMessage(payload: string): void; onLiveChange(live: boolean): void } => {
  let opened = false;
  return {
    onMessage: () => reload('notification'),
    onLiveChange: (live) => {
      if (live && opened) reload('notification connection back');
      if (live) opened = true;
    },
  };
};
