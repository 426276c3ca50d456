import { randomUUID } from 'node:crypto';
export class RandomUuidGenerator {
    next() {
        return randomUUID();
    }
}
//# sourceMappingURL=random-uuid-generator.js.map