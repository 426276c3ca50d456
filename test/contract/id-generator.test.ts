import { RandomUuidGenerator } from '../../src/adapters/system/random-uuid-generator.js';
import { SequentialIds } from '../fakes/sequential-ids.js';
import { describeIdGeneratorContract } from './id-generator.contract.js';

describeIdGeneratorContract('random UUIDs (node:crypto)', () => new RandomUuidGenerator());
describeIdGeneratorContract('the sequential ids the unit tests use', () => new SequentialIds());
