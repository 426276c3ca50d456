import { StringDecoder } from 'node:string_decoder';
import { CliFailure } from './usage-error.js';
/**
 * Reads a new password. On a terminal it asks twice, with the terminal in raw mode so that
 * nothing typed is echoed, and refuses two different answers; otherwise it reads the first
 * line of the input (`echo "$PASSWORD" | agent-gateway admin set-password`). Prompts go to
 * `prompts` (stderr), never to stdout.
 */
export const readNewPassword = async (input, prompts) => {
    if (input.isTTY !== true || typeof input.setRawMode !== 'function')
        return readFirstLine(input);
    // One raw-mode session for both answers: what is typed between them is not echoed either.
    const terminal = new HiddenLines(input, prompts);
    try {
        const first = await terminal.read('New admin password: ');
        const second = await terminal.read('Repeat the password: ');
        if (first !== second)
            throw new CliFailure('The two passwords differ; the password was not changed');
        return first;
    }
    finally {
        terminal.close();
    }
};
/** The first line of a (piped) input, without its line ending; fails when the input is empty. */
export const readFirstLine = (input) => new Promise((resolve, reject) => {
    const decoder = new StringDecoder('utf8');
    let text = '';
    let received = false;
    const finish = (error) => {
        input.off('data', onData).off('end', onEnd).off('error', onError);
        input.pause();
        if (error)
            reject(error);
        else
            resolve(text.replace(/\r$/, ''));
    };
    const onData = (chunk) => {
        received = true;
        text += typeof chunk === 'string' ? chunk : decoder.write(chunk);
        const end = text.indexOf('\n');
        if (end !== -1) {
            text = text.slice(0, end);
            finish();
        }
    };
    const onEnd = () => {
        text += decoder.end();
        finish(received ? undefined : new CliFailure('No password on stdin: pipe one line into the command, or run it on a terminal'));
    };
    const onError = (error) => finish(error);
    input.on('data', onData).on('end', onEnd).on('error', onError);
    input.resume();
});
const ENTER = new Set(['\r', '\n']);
const CANCEL = '\u0003'; // Ctrl-C: raw mode delivers it as a character instead of a signal
const END_OF_INPUT = '\u0004'; // Ctrl-D
const ERASE = new Set(['\u007f', '\b']);
const ERASE_LINE = '\u0015'; // Ctrl-U
/**
 * Lines typed on a terminal in raw mode, echoing nothing. Backspace and Ctrl-U edit; Ctrl-C,
 * or Ctrl-D on an empty line, cancels; escape sequences (arrow keys) and other control
 * characters are ignored. What is typed ahead of a prompt is kept for it. `close` puts the
 * terminal back in its normal mode.
 */
export class HiddenLines {
    input;
    prompts;
    #decoder = new StringDecoder('utf8');
    /** Typed characters not consumed yet (typed ahead of a prompt). */
    #pending = [];
    #ended = false;
    #failure;
    #wake;
    #closed = false;
    constructor(input, prompts) {
        this.input = input;
        this.prompts = prompts;
        input.setRawMode?.(true);
        input.on('data', this.#onData).on('end', this.#onEnd).on('error', this.#onError);
        input.resume();
    }
    /** Shows `prompt` and resolves with the line typed after it (without echo). */
    async read(prompt) {
        this.prompts.write(prompt);
        try {
            let typed = '';
            /** Inside an escape sequence: ESC, then `[` or `O`, then parameters up to a final letter. */
            let inEscape = 'none';
            for (;;) {
                const char = await this.#next();
                if (inEscape === 'started') {
                    inEscape = char === '[' || char === 'O' ? 'sequence' : 'none';
                    continue;
                }
                if (inEscape === 'sequence') {
                    if (char >= '@' && char <= '~')
                        inEscape = 'none';
                    continue;
                }
                if (ENTER.has(char))
                    return typed;
                if (char === CANCEL || (char === END_OF_INPUT && typed === ''))
                    throw new CliFailure('Cancelled; the password was not changed');
                if (ERASE.has(char))
                    typed = [...typed].slice(0, -1).join('');
                else if (char === ERASE_LINE)
                    typed = '';
                else if (char === '\u001b')
                    inEscape = 'started';
                else if (char >= ' ')
                    typed += char;
            }
        }
        finally {
            this.prompts.write('\n');
        }
    }
    /** Back to the terminal's normal mode; stops reading. Idempotent. */
    close() {
        if (this.#closed)
            return;
        this.#closed = true;
        this.input.off('data', this.#onData).off('end', this.#onEnd).off('error', this.#onError);
        this.input.setRawMode?.(false);
        this.input.pause();
    }
    async #next() {
        for (;;) {
            const char = this.#pending.shift();
            if (char !== undefined)
                return char;
            if (this.#failure)
                throw this.#failure;
            if (this.#ended)
                throw new CliFailure('The input ended before the password was entered; it was not changed');
            await new Promise((resolve) => (this.#wake = resolve));
        }
    }
    #notify() {
        const wake = this.#wake;
        this.#wake = undefined;
        wake?.();
    }
    #onData = (chunk) => {
        this.#pending.push(...(typeof chunk === 'string' ? chunk : this.#decoder.write(chunk)));
        this.#notify();
    };
    #onEnd = () => {
        this.#ended = true;
        this.#notify();
    };
    #onError = (error) => {
        this.#failure = error;
        this.#notify();
    };
}
//# sourceMappingURL=password-prompt.js.map