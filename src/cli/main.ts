#!/usr/bin/env node
/**
 * The `agent-gateway` command. Checks the Node.js version and only then loads the rest
 * (static imports would be evaluated before the check).
 */
import { refuseUnsupportedNode } from './nodeVersion.js';

refuseUnsupportedNode();
await import('./cliMain.js');
