import { Swappable } from '../../src/container/swappable.js';
import { describeLiveSetContract } from './live-set.contract.js';

describeLiveSetContract('Swappable, as the configuration reloader replaces it', (initial) => {
  const live = new Swappable(initial);
  return { live, reload: (set) => live.replace(set) };
});
