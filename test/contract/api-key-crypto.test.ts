import { NodeApiKeyCrypto } from '../../src/adapters/crypto/node-api-key-crypto.js';
import { describeApiKeyCryptoContract } from './api-key-crypto.contract.js';

describeApiKeyCryptoContract('node:crypto', () => new NodeApiKeyCrypto());
