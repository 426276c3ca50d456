/**
 * Messages between the main thread and the thread that runs the embedded database
 * (see PgliteThread). Every request carries an `id` and gets exactly one reply with it.
 */
/** Also takes what is thrown but is no Error, such as the WebAssembly file system's `{name: 'ErrnoError', errno}`. */
export const toPortableError = (error) => {
    if (error === null || typeof error !== 'object')
        return { message: String(error), name: 'Error', fields: {} };
    const fields = {};
    for (const [key, value] of Object.entries(error)) {
        if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
            fields[key] = value;
    }
    if (error instanceof Error)
        return { message: error.message, name: error.name, fields };
    const name = typeof fields.name === 'string' ? fields.name : 'Error';
    const detail = Object.entries(fields)
        .filter(([key]) => key !== 'name')
        .map(([key, value]) => `${key} ${value}`)
        .join(', ');
    return { message: detail === '' ? name : `${name} (${detail})`, name, fields };
};
export const fromPortableError = (portable) => Object.assign(new Error(portable.message), { name: portable.name }, portable.fields);
//# sourceMappingURL=protocol.js.map