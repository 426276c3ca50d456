/** A LiveSet a reload replaces as a whole: readers hold the snapshot they took, never a half-built one. */
export class Swappable {
    #value;
    constructor(value) {
        this.#value = value;
    }
    current() {
        return this.#value;
    }
    replace(value) {
        this.#value = value;
    }
}
//# sourceMappingURL=swappable.js.map