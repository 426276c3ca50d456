import { TOKEN } from './template-tokens.js';

/**
 * Where a `{{token}}` of a command template stands, as `/bin/sh` will read the rendered script:
 * unquoted, inside "…", inside '…', or in the body of a here-document whose delimiter is unquoted.
 */
export type TokenContext = 'unquoted' | 'double' | 'single' | 'heredoc';

/** One token occurrence of a template, and where it stands (or why no value may stand there). */
export interface TokenPlace {
  readonly index: number;
  readonly length: number;
  /** The token as written, e.g. `{{body.a}}`. */
  readonly token: string;
  readonly source: string;
  readonly path: string;
  readonly place: { readonly context: TokenContext } | { readonly refused: string };
}

/** Why a token cannot stand where it stands; each completes "{{token}} stands …". */
export const REFUSED = {
  comment: 'inside a # comment: the command would never see the value',
  quotedHeredoc: "in a here-document whose delimiter is quoted (<<'EOF'), where nothing is expanded: the value would not arrive",
  delimiter: 'in a here-document delimiter, which must be fixed text',
  dollarSingle: "inside $'…', where the value could not arrive as itself: use '…' or \"…\"",
  arithmetic: 'inside arithmetic ($((…)), ((…)) or $[…]), which evaluates the value as an expression that can run commands',
  doubleBracket: 'inside [[ … ]], whose -eq, -lt… operands bash evaluates as arithmetic that can run commands: use [ … ]',
  subscript: 'inside an array subscript (or what bash may read as one: quote the word if it is none), which bash evaluates as arithmetic that can run commands',
  substring: 'inside ${name:offset:length}, whose offset and length bash evaluates as arithmetic that can run commands',
  backslash: 'right after a backslash, which would escape the reference to the value instead of the value',
  dollar: 'right after a $, which would join the reference to the value into another expansion',
  name: 'as the name of a ${…} expansion: a value cannot name a variable',
  integerVariable:
    'in an assignment to RANDOM, SRANDOM, OPTIND, HISTCMD or SECONDS, integer variables whose assigned value bash evaluates as arithmetic that can run commands',
  declaredName:
    'as (part of) a name given to declare, typeset, local, export or readonly, which bash reads as a name with a subscript it evaluates, an assignment or an option: give the value after a fixed name=',
  declaredValue: 'as the value of declare, typeset or local -n or -i, which bash evaluates as a variable name or as arithmetic that can run commands',
  completion: 'as an argument of compgen or complete, which expand a -W word list again and run -C and -F as commands',
} as const;

/**
 * The variables bash gives the integer attribute from the start and evaluates an assigned value of
 * (`OPTIND=a[$(touch x)]` runs `touch` under bash, even from an expanded variable; SECONDS only
 * through `declare`). LINENO, BASHPID and the read-only UID, EUID, PPID do not evaluate.
 */
const INTEGER_VARIABLES = new Set(['RANDOM', 'SRANDOM', 'OPTIND', 'HISTCMD', 'SECONDS']);
/** Builtins whose arguments bash reads as names (with subscripts), assignments and options. */
const DECLARATIONS = new Set(['declare', 'typeset', 'local', 'export', 'readonly']);
/** Words after which the next word still names the command. */
const COMMAND_PREFIXES = new Set(['if', 'then', 'else', 'elif', 'do', 'while', 'until', 'time', '!', '{', 'command', 'builtin']);

/** What the scanner knows of the simple command it is in. */
interface CommandState {
  /** The next word names the command (only assignments and prefixes such as `then` came before). */
  commandPosition: boolean;
  /** Inside the arguments of a declaration builtin; `values` once it was given -n or -i. */
  declaring?: { values: boolean };
  /** Inside the arguments of compgen or complete. */
  completing: boolean;
}

interface Heredoc {
  readonly delimiter: string;
  readonly stripTabs: boolean;
  readonly quoted: boolean;
}

const WORD_END = /[ \t\n;&|()<>]/;
const isWordEnd = (c: string | undefined): boolean => c === undefined || WORD_END.test(c);

/**
 * Reports the place of every token in a command template: a small shell lexer (POSIX sh, plus
 * the bash forms a template may use) that follows quotes, `$(…)`, backticks, `${…}`,
 * arithmetic, `[[ … ]]`, comments and here-documents, restarting the quoting inside each
 * command substitution.
 *
 * Safety does not rest on this lexer being right. The rendered script holds a reference to an
 * environment variable where each token stood, never the value, so a shell only ever expands
 * the value and never parses it: reading a place wrongly can change how the value's bytes arrive
 * (split into words, or as the literal text of the reference), not make it code. The one way an
 * expanded value becomes code is a shell evaluating it again — arithmetic, `[[ … ]]` and array
 * subscripts in bash — and those places are refused: they are recognised by their opening
 * characters wherever they may open, everything nested inside them is refused too, and each
 * is ended only by its own closing characters, so a misreading errs toward refusing.
 */
export const findTokenPlaces = (template: string): TokenPlace[] => new Scanner(template).scan();

class Scanner {
  readonly #s: string;
  readonly #tokens = new Map<number, RegExpExecArray>();
  readonly #places: TokenPlace[] = [];
  #pending: Heredoc[] = [];
  /** Reasons of the evaluating constructs the scanner is inside, outermost first. */
  readonly #evaluating: string[] = [];
  #i = 0;
  #end: number;

  constructor(template: string) {
    this.#s = template;
    this.#end = template.length;
    const tokens = new RegExp(TOKEN.source, 'g');
    for (let m = tokens.exec(template); m; m = tokens.exec(template)) this.#tokens.set(m.index, m);
  }

  scan(): TokenPlace[] {
    this.#command('');
    return this.#places;
  }

  /** Records the token at `at` (refused when inside an evaluating construct) and moves past it. */
  #place(at: number, where: TokenContext | { refused: string }): void {
    const m = this.#tokens.get(at)!;
    const place = this.#evaluating.length > 0 ? { refused: this.#evaluating[0] } : typeof where === 'string' ? { context: where } : where;
    this.#places.push({ index: at, length: m[0].length, token: m[0], source: m[1], path: m[2], place });
    this.#i = at + m[0].length;
  }

  /** Runs `scan` with every token inside it refused for `reason`. */
  #evaluated(reason: string, scan: () => void): void {
    this.#evaluating.push(reason);
    try {
      scan();
    } finally {
      this.#evaluating.pop();
    }
  }

  /** Skips a backslash and the character it escapes; a token there is refused. */
  #backslash(): void {
    if (this.#tokens.has(this.#i + 1)) this.#place(this.#i + 1, { refused: REFUSED.backslash });
    else this.#i += 2;
  }

  /** Command text (the top level, `$(…)`, backticks, `[[ … ]]`), up to its `closer`. */
  #command(closer: '' | ')' | '`' | ']]'): void {
    const s = this.#s;
    let wordStart = true;
    let depth = 0;
    let cases = 0;
    const state: CommandState = { commandPosition: true, completing: false };
    const endCommand = (): void => {
      state.commandPosition = true;
      state.declaring = undefined;
      state.completing = false;
    };
    while (this.#i < this.#end) {
      const i = this.#i;
      const c = s[i];
      // Inside [[ … ]] every token is refused already.
      if (wordStart && closer !== ']]' && !isWordEnd(c) && c !== '#' && !(closer === '`' && c === '`') && this.#startWord(state)) {
        wordStart = false;
        continue;
      }
      if (this.#tokens.has(i)) {
        this.#place(i, 'unquoted');
        wordStart = false;
        continue;
      }
      if ((closer === ')' && c === ')' && depth === 0 && cases === 0) || (closer === '`' && c === '`')) {
        this.#i++;
        return;
      }
      if (closer === ']]' && wordStart && s.startsWith(']]', i) && isWordEnd(s[i + 2])) {
        this.#i += 2;
        return;
      }
      if (wordStart && (s.startsWith('case', i) || s.startsWith('esac', i)) && isWordEnd(s[i + 4])) {
        // Inside `case … esac` a pattern's `)` does not close a `$(…)`.
        if (c === 'c') cases++;
        else if (cases > 0) cases--;
        this.#i += 4;
        wordStart = false;
        continue;
      }
      if (c === '\n') {
        this.#i++;
        this.#heredocs();
        wordStart = true;
        endCommand();
      } else if (c === ' ' || c === '\t') {
        this.#i++;
        wordStart = true;
      } else if (c === '#' && wordStart) {
        this.#comment(closer === '`');
      } else if (c === '\\') {
        if (s[i + 1] === '\n') this.#i += 2;
        else {
          this.#backslash();
          wordStart = false;
        }
      } else if (c === "'") {
        this.#single();
        wordStart = false;
      } else if (c === '"') {
        this.#double();
        wordStart = false;
      } else if (c === '$') {
        this.#dollar('unquoted');
        wordStart = false;
      } else if (c === '`') {
        this.#i++;
        this.#command('`');
        wordStart = false;
      } else if (c === '(' && s[i + 1] === '(') {
        this.#i += 2;
        this.#evaluated(REFUSED.arithmetic, () => this.#arithmetic('))'));
        wordStart = true;
      } else if (c === '(' || c === ')') {
        if (c === '(') depth++;
        else if (depth > 0) depth--;
        this.#i++;
        wordStart = true;
        endCommand();
      } else if (wordStart && s.startsWith('[[', i) && isWordEnd(s[i + 2])) {
        this.#i += 2;
        this.#evaluated(REFUSED.doubleBracket, () => this.#command(']]'));
        wordStart = true;
      } else if (wordStart && /^(?:[A-Za-z_][A-Za-z0-9_]*\[|\[[^\s[\]])/.test(s.slice(i, i + 256))) {
        // `name[…]=…` and `([…]=…)`: bash evaluates an indexed array's subscript as arithmetic.
        this.#i = s.indexOf('[', i) + 1;
        this.#evaluated(REFUSED.subscript, () => this.#arithmetic(']'));
        wordStart = false;
      } else if (s.startsWith('<<<', i)) {
        this.#i += 3;
        wordStart = true;
      } else if (s.startsWith('<<', i)) {
        this.#i += 2;
        this.#heredocOperator();
        wordStart = true;
      } else {
        this.#i++;
        wordStart = /[;&|<>]/.test(c);
        if (/[;&|]/.test(c)) endCommand();
      }
    }
  }

  /**
   * At the start of a word of command text: refuses the tokens of the word where bash evaluates
   * what it holds (an assignment to an integer variable, the arguments of a declaration builtin,
   * of compgen or complete), consuming the word and returning true; otherwise only notes whether
   * the word names the command, and returns false for the word to be read as usual. The command
   * name is recognised as fixed text at the start of a command, after assignments and prefixes
   * such as `then`, `!` or `command`; a name built from expansions is not seen.
   */
  #startWord(state: CommandState): boolean {
    const head = this.#s.slice(this.#i, this.#i + 256);
    const assignment = /^([A-Za-z_][A-Za-z0-9_]*)(\+?=|\[)/.exec(head);
    if (assignment && INTEGER_VARIABLES.has(assignment[1]!)) {
      // With or without a builtin before it, a command after it (bash in POSIX mode, as /bin/sh, keeps the assignment).
      this.#evaluated(REFUSED.integerVariable, () => this.#wordToEnd(true));
      return true;
    }
    if (state.completing) {
      this.#evaluated(REFUSED.completion, () => this.#wordToEnd(false));
      return true;
    }
    if (state.declaring) {
      if (assignment && assignment[2] !== '[') {
        if (!state.declaring.values) return false;
        this.#i += assignment[0].length;
        this.#evaluated(REFUSED.declaredValue, () => this.#wordToEnd(true));
        return true;
      }
      const option = /^[-+][A-Za-z]+(?=[ \t\n;&|()<>]|$)/.exec(head);
      if (option) {
        if (/[ni]/.test(option[0])) state.declaring.values = true;
        return false;
      }
      this.#evaluated(REFUSED.declaredName, () => this.#wordToEnd(false));
      return true;
    }
    if (!state.commandPosition) return false;
    const word = /^[^ \t\n;&|()<>'"\\$`]+(?=[ \t\n;&|()<>]|$)/.exec(head)?.[0];
    if (word !== undefined && DECLARATIONS.has(word)) {
      state.declaring = { values: false };
      state.commandPosition = false;
    } else if (word === 'compgen' || word === 'complete') {
      state.completing = true;
      state.commandPosition = false;
    } else state.commandPosition = (word !== undefined && COMMAND_PREFIXES.has(word)) || assignment !== null;
    return false;
  }

  /**
   * The rest of a word of command text, up to its end: quotes, expansions and (after `=`, when
   * `compound`) a parenthesised array value are part of it.
   */
  #wordToEnd(compound: boolean): void {
    const s = this.#s;
    while (this.#i < this.#end) {
      const c = s[this.#i];
      if (this.#tokens.has(this.#i)) this.#place(this.#i, 'unquoted');
      else if (compound && c === '(' && s[this.#i - 1] === '=') {
        this.#i++;
        this.#command(')');
      } else if (isWordEnd(c)) return;
      else if (c === "'") this.#single();
      else if (c === '"') this.#double();
      else if (c === '\\') {
        // A line continuation joins the next line to the word.
        if (s[this.#i + 1] === '\n') this.#i += 2;
        else this.#backslash();
      } else if (c === '$') this.#dollar('unquoted');
      else if (c === '`') {
        this.#i++;
        this.#command('`');
      } else this.#i++;
    }
  }

  #comment(inBackticks: boolean): void {
    const s = this.#s;
    while (this.#i < this.#end && s[this.#i] !== '\n' && !(inBackticks && s[this.#i] === '`')) {
      if (this.#tokens.has(this.#i)) this.#place(this.#i, { refused: REFUSED.comment });
      else this.#i++;
    }
  }

  /** After an opening `'`: nothing is special but the closing quote. */
  #single(): void {
    this.#i++;
    while (this.#i < this.#end) {
      if (this.#tokens.has(this.#i)) this.#place(this.#i, 'single');
      else if (this.#s[this.#i++] === "'") return;
    }
  }

  /** After an opening `$'`: escapes the value could not pass through. */
  #dollarSingle(): void {
    this.#i += 2;
    while (this.#i < this.#end) {
      const c = this.#s[this.#i];
      if (this.#tokens.has(this.#i)) this.#place(this.#i, { refused: REFUSED.dollarSingle });
      else if (c === '\\') this.#i += 2;
      else {
        this.#i++;
        if (c === "'") return;
      }
    }
  }

  /** After an opening `"`. */
  #double(): void {
    this.#i++;
    this.#expanding('double', '"');
  }

  /**
   * Text where `$…`, backticks and backslashes keep their meaning but quotes do not start
   * words: inside "…" (up to `"`), a here-document body (to the end), a `${…}` word inside
   * "…" (up to `}`).
   */
  #expanding(context: 'double' | 'heredoc', closer: '"' | '}' | ''): void {
    const s = this.#s;
    while (this.#i < this.#end) {
      const c = s[this.#i];
      if (this.#tokens.has(this.#i)) this.#place(this.#i, context);
      else if (c === closer) {
        this.#i++;
        return;
      } else if (c === '\\') this.#backslash();
      else if (c === '$') this.#dollar(context);
      else if (c === '`') {
        this.#i++;
        this.#command('`');
      } else if (c === '"' && closer === '}') this.#double();
      else this.#i++;
    }
  }

  /** At a `$`, in command text (`unquoted`), inside "…" or in a here-document body. */
  #dollar(context: TokenContext): void {
    const s = this.#s;
    const i = this.#i;
    if (this.#tokens.has(i + 1)) {
      this.#place(i + 1, { refused: REFUSED.dollar });
      return;
    }
    if (s.startsWith('$((', i)) {
      this.#i += 3;
      this.#evaluated(REFUSED.arithmetic, () => this.#arithmetic('))'));
    } else if (s.startsWith('$(', i)) {
      this.#i += 2;
      this.#command(')');
    } else if (s.startsWith('${', i)) {
      this.#i += 2;
      this.#parameter(context);
    } else if (s.startsWith('$[', i)) {
      this.#i += 2;
      this.#evaluated(REFUSED.arithmetic, () => this.#arithmetic(']'));
    } else if (context === 'unquoted' && s[i + 1] === "'") this.#dollarSingle();
    else if (context === 'unquoted' && s[i + 1] === '"') {
      this.#i++;
      this.#double();
    } else this.#i++;
  }

  /**
   * Arithmetic (after `$((`, `((`, `$[`) or a subscript (after `[`), up to its closer at nesting
   * depth 0 — only the full closer ends it, so an unbalanced parenthesis keeps it open.
   */
  #arithmetic(closer: '))' | ']'): void {
    const s = this.#s;
    let depth = 0;
    while (this.#i < this.#end) {
      const c = s[this.#i];
      if (this.#tokens.has(this.#i)) this.#place(this.#i, 'unquoted');
      else if (depth === 0 && s.startsWith(closer, this.#i)) {
        this.#i += closer.length;
        return;
      } else if (c === '(' || c === '[') {
        depth++;
        this.#i++;
      } else if (c === ')' || c === ']') {
        if (depth > 0) depth--;
        this.#i++;
      } else if (c === "'") this.#single();
      else if (c === '"') this.#double();
      else if (c === '\\') this.#backslash();
      else if (c === '$') this.#dollar('unquoted');
      else if (c === '`') {
        this.#i++;
        this.#command('`');
      } else this.#i++;
    }
  }

  /** After `${`: the name, an optional subscript, the operator, and the word up to `}`. */
  #parameter(context: TokenContext): void {
    const s = this.#s;
    const name = /^[#!]?(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!0-])?/.exec(s.slice(this.#i, this.#i + 256))![0];
    this.#i += name.length;
    if (this.#tokens.has(this.#i)) this.#place(this.#i, { refused: REFUSED.name });
    if (s[this.#i] === '[') {
      this.#i++;
      this.#evaluated(REFUSED.subscript, () => this.#arithmetic(']'));
    }
    if (s[this.#i] === '}') {
      this.#i++;
      return;
    }
    if (s[this.#i] === ':' && !'-=?+'.includes(s[this.#i + 1] ?? '')) {
      this.#i++;
      this.#evaluated(REFUSED.substring, () => this.#word(context));
      return;
    }
    this.#i += /^(?::[-=?+]|##?|%%?|\/[/#%]?|\^\^?|,,?|[-=?+@])?/.exec(s.slice(this.#i, this.#i + 2))![0].length;
    this.#word(context);
  }

  /** The word of a `${…}` expansion, up to its `}`, quoted as the expansion itself is. */
  #word(context: TokenContext): void {
    if (context !== 'unquoted') {
      this.#expanding(context === 'heredoc' ? 'heredoc' : 'double', '}');
      return;
    }
    const s = this.#s;
    while (this.#i < this.#end) {
      const c = s[this.#i];
      if (this.#tokens.has(this.#i)) this.#place(this.#i, 'unquoted');
      else if (c === '}') {
        this.#i++;
        return;
      } else if (c === "'") this.#single();
      else if (c === '"') this.#double();
      else if (c === '\\') this.#backslash();
      else if (c === '$') this.#dollar('unquoted');
      else if (c === '`') {
        this.#i++;
        this.#command('`');
      } else this.#i++;
    }
  }

  /** After `<<`: `-`, blanks, and the delimiter word, quoted or not; the body follows the next newline. */
  #heredocOperator(): void {
    const s = this.#s;
    const stripTabs = s[this.#i] === '-';
    if (stripTabs) this.#i++;
    while (s[this.#i] === ' ' || s[this.#i] === '\t') this.#i++;
    let delimiter = '';
    let quoted = false;
    while (this.#i < this.#end && !isWordEnd(s[this.#i])) {
      const c = s[this.#i];
      if (this.#tokens.has(this.#i)) {
        this.#place(this.#i, { refused: REFUSED.delimiter });
        quoted = true;
      } else if (c === "'" || c === '"') {
        const close = s.indexOf(c, this.#i + 1);
        const stop = close < 0 ? this.#end : close;
        delimiter += s.slice(this.#i + 1, stop).replace(c === '"' ? /\\([$`"\\])/g : /(?!)/g, '$1');
        quoted = true;
        this.#i = stop + 1;
      } else if (c === '\\') {
        delimiter += s[this.#i + 1] ?? '';
        quoted = true;
        this.#i += 2;
      } else {
        delimiter += c;
        this.#i++;
      }
    }
    this.#pending.push({ delimiter, stripTabs, quoted });
  }

  /** After a newline of command text: the bodies of the here-documents opened on its line. */
  #heredocs(): void {
    const pending = this.#pending;
    this.#pending = [];
    const s = this.#s;
    for (const heredoc of pending) {
      // The shell finds the body line by line first: the first line equal to the delimiter ends it.
      const start = this.#i;
      let bodyEnd = this.#end;
      let next = this.#end;
      for (let line = start; line < this.#end; ) {
        const newline = s.indexOf('\n', line);
        const lineEnd = newline < 0 || newline > this.#end ? this.#end : newline;
        const text = s.slice(line, lineEnd);
        if ((heredoc.stripTabs ? text.replace(/^\t+/, '') : text) === heredoc.delimiter) {
          bodyEnd = line;
          next = Math.min(lineEnd + 1, this.#end);
          break;
        }
        line = lineEnd + 1;
      }
      const outerEnd = this.#end;
      this.#end = bodyEnd;
      if (heredoc.quoted) {
        for (; this.#i < bodyEnd; ) {
          if (this.#tokens.has(this.#i)) this.#place(this.#i, { refused: REFUSED.quotedHeredoc });
          else this.#i++;
        }
      } else this.#expanding('heredoc', '');
      this.#end = outerEnd;
      this.#i = next;
    }
  }
}
