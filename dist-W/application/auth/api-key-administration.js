export class ApiKeyAdministration {
    createKey;
    listKeys;
    revokeKey;
    constructor(createKey, listKeys, revokeKey) {
        this.createKey = createKey;
        this.listKeys = listKeys;
        this.revokeKey = revokeKey;
    }
    create(name) {
        return this.createKey.execute({ name });
    }
    list() {
        return this.listKeys.execute();
    }
    revoke(id) {
        return this.revokeKey.execute({ id });
    }
}
//# sourceMappingURL=api-key-administration.js.map