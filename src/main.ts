/**
 * `npm start` and `node dist/main.js` start the service; every other command is the CLI's.
 * This entry checks the Node.js version and only then loads the rest: static imports are
 * evaluated before a module's own code, so the check cannot sit next to them.
 */
import { refuseUnsupportedNode } from './cli/nodeVersion.js';

refuseUnsupportedNode();
await import('./cli/serviceMain.js');
