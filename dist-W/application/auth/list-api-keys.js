import { summarize } from '../../domain/auth/api-key-record.js';
export class ListApiKeys {
    keys;
    constructor(keys) {
        this.keys = keys;
    }
    async execute() {
        return (await this.keys.list()).map(summarize);
    }
}
//# sourceMappingURL=list-api-keys.js.map