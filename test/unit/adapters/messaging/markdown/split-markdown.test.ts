import { expect } from 'chai';
import { splitMarkdown } from '../../../../../src/adapters/messaging/markdown/split-markdown.js';

/** Telegram's limit, the one the cases were written for. */
const splitReply = (text: string, limit = 4096): string[] => splitMarkdown(text, limit);

const isHigh = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;
/** Whether a string starts or ends with half of a surrogate pair. */
const hasBrokenPair = (part: string): boolean => isLow(part.charCodeAt(0)) || isHigh(part.charCodeAt(part.length - 1));
/** The text without its whitespace, to compare what a split kept with what it was given. */
const visible = (text: string): string => text.replace(/\s+/g, '');

describe('splitMarkdown', () => {
  describe('short replies', () => {
    it('keeps a reply within the limit as one part', () => {
      expect(splitReply('Hello, Alice!')).to.deep.equal(['Hello, Alice!']);
    });

    it('keeps a reply of exactly the limit as one part', () => {
      const text = 'x'.repeat(4096);
      expect(splitReply(text)).to.deep.equal([text]);
    });

    it('splits a reply one character over the limit', () => {
      const parts = splitReply(`${'a'.repeat(4095)} b`);
      expect(parts).to.deep.equal(['a'.repeat(4095), 'b']);
    });

    it('returns no parts for empty or whitespace-only text', () => {
      expect(splitReply('')).to.deep.equal([]);
      expect(splitReply(' \n\t\n ')).to.deep.equal([]);
    });

    it('drops leading blank lines and trailing whitespace but keeps the first line’s indentation', () => {
      expect(splitReply('\n\n  indented\ntext  \n\n')).to.deep.equal(['  indented\ntext']);
    });
  });

  describe('where it cuts', () => {
    it('prefers a paragraph break over a later line break', () => {
      const text = 'First paragraph.\n\nSecond one,\nstill second, and more';
      expect(splitReply(text, 40)).to.deep.equal(['First paragraph.', 'Second one,\nstill second, and more']);
    });

    it('cuts at the last line break when no paragraph break fits', () => {
      const text = 'line one\nline two\nline three is long';
      expect(splitReply(text, 20)).to.deep.equal(['line one\nline two', 'line three is long']);
    });

    it('cuts at the last space when no line break fits', () => {
      expect(splitReply('the quick brown fox jumps', 12)).to.deep.equal(['the quick', 'brown fox', 'jumps']);
    });

    it('hard-cuts a word longer than the limit', () => {
      expect(splitReply('abcdefghij', 4)).to.deep.equal(['abcd', 'efgh', 'ij']);
    });

    it('treats a line of spaces as a blank line between paragraphs', () => {
      expect(splitReply('para one\n   \npara two\nmore', 20)).to.deep.equal(['para one', 'para two\nmore']);
    });

    it('handles Windows line breaks (sent as \\n)', () => {
      expect(splitReply('para one\r\n\r\npara two', 12)).to.deep.equal(['para one', 'para two']);
      expect(splitReply('line one\r\nline two\r\nline three', 20)).to.deep.equal(['line one\nline two', 'line three']);
    });

    it('uses a break exactly at the limit', () => {
      expect(splitReply('12345\n678', 5)).to.deep.equal(['12345', '678']);
    });

    it('never starts a part with the blank lines of the break', () => {
      expect(splitReply('aaaa\n\n\n\nbbbb', 6)).to.deep.equal(['aaaa', 'bbbb']);
    });

    it('keeps every visible character, in order', () => {
      const text = Array.from({ length: 60 }, (_, i) => `Paragraph ${i}: ${'lorem ipsum dolor '.repeat(i % 7)}\n${i % 3 === 0 ? '\n' : ''}`).join('');
      const parts = splitReply(text, 200);
      expect(parts.length).to.be.greaterThan(1);
      for (const part of parts) expect(part.length).to.be.at.most(200);
      expect(visible(parts.join(''))).to.equal(visible(text));
    });
  });

  describe('lists and other blocks', () => {
    it('cuts a long list between its items', () => {
      const text = 'Steps:\n- first step\n- second step\n- third step\n- fourth step';
      expect(splitReply(text, 30)).to.deep.equal(['Steps:\n- first step', '- second step\n- third step', '- fourth step']);
    });

    it('moves a heading that fits together with what follows, not alone at the end of a part', () => {
      const text = `${'a'.repeat(20)}\n\n## Title\nbody text`;
      expect(splitReply(text, 25)).to.deep.equal(['a'.repeat(20), '## Title\nbody text']);
    });

    it('splits input nested deeper than the library can follow within the limit, keeping all of it', () => {
      const text = `${'> '.repeat(20000)}end`;
      const parts = splitReply(text, 4096);
      for (const part of parts) expect(part.length).to.be.at.most(4096);
      expect(visible(parts.join(''))).to.equal(visible(text));
    });
  });

  describe('surrogate pairs', () => {
    it('does not hard-cut between the halves of an emoji', () => {
      // 'abc' then a 2-unit emoji: a cut at 4 would fall inside it.
      const parts = splitReply('abc😀😀def', 4);
      expect(parts).to.deep.equal(['abc', '😀😀', 'def']);
      for (const part of parts) expect(hasBrokenPair(part)).to.equal(false);
    });

    it('keeps emoji whole in a long run of emoji', () => {
      const text = '👍'.repeat(3000);
      const parts = splitReply(text, 4096);
      expect(parts.map((p) => p.length)).to.deep.equal([4096, 1904]);
      for (const part of parts) expect(hasBrokenPair(part)).to.equal(false);
      expect(parts.join('')).to.equal(text);
    });

    it('moves the cut back when the limit is odd and would split an emoji', () => {
      const parts = splitReply('😀'.repeat(5), 5);
      expect(parts).to.deep.equal(['😀😀', '😀😀', '😀']);
    });
  });

  describe('fenced code blocks', () => {
    const block = '```ts\nconst a = 1;\nconst b = 2;\n```';

    it('moves a code block that fits the limit whole into the next part', () => {
      const text = `Here is the code:\n${block}\nDone.`;
      expect(splitReply(text, block.length + 2)).to.deep.equal(['Here is the code:', block, 'Done.']);
    });

    it('does not cut at the blank lines or spaces inside a block that fits', () => {
      const spaced = '```\nfirst line\n\nsecond line\n```';
      const text = `Intro words here\n${spaced}`;
      expect(splitReply(text, spaced.length)).to.deep.equal(['Intro words here', spaced]);
    });

    it('keeps text and a block together when both fit', () => {
      const text = `Intro\n${block}\n\nOutro paragraph that will not fit`;
      expect(splitReply(text, 50)).to.deep.equal([`Intro\n${block}`, 'Outro paragraph that will not fit']);
    });

    it('cuts a block longer than the limit at its line breaks, closing and reopening the fence with its language', () => {
      const code = Array.from({ length: 6 }, (_, i) => `line ${i}`).join('\n');
      const text = `\`\`\`python\n${code}\n\`\`\``;
      const parts = splitReply(text, 34);
      expect(parts).to.deep.equal(['```python\nline 0\nline 1\nline 2\n```', '```python\nline 3\nline 4\nline 5\n```']);
      for (const part of parts) expect(part.length).to.be.at.most(34);
    });

    it('puts the text before a block that is too long in a part of its own, then cuts the block', () => {
      const code = Array.from({ length: 8 }, (_, i) => `x${i}`).join('\n');
      const parts = splitReply(`See:\n\`\`\`\n${code}\n\`\`\`\nBye`, 20);
      expect(parts).to.deep.equal(['See:', '```\nx0\nx1\nx2\nx3\n```', '```\nx4\nx5\nx6\nx7\n```', 'Bye']);
    });

    it('hard-cuts a block line longer than the limit and still closes the fence', () => {
      const parts = splitReply(`\`\`\`\n${'y'.repeat(30)}\n\`\`\``, 16);
      for (const part of parts) {
        expect(part.length).to.be.at.most(16);
        expect(part.startsWith('```\n')).to.equal(true);
        expect(part.endsWith('\n```')).to.equal(true);
      }
      expect(parts.map((p) => p.slice(4, -4)).join('')).to.equal('y'.repeat(30));
    });

    it('closes and reopens an unclosed block it has to cut', () => {
      const parts = splitReply('```sh\necho 1\necho 2\necho 3', 18);
      expect(parts).to.deep.equal(['```sh\necho 1\n```', '```sh\necho 2\n```', '```sh\necho 3']);
    });

    it('does not take inline triple backticks in the middle of a line for a fence', () => {
      const text = 'use ```x``` inline\nnext line here';
      expect(splitReply(text, 20)).to.deep.equal(['use ```x``` inline', 'next line here']);
    });
  });

  describe('invariants on varied input', () => {
    // A small deterministic generator, so the cases are the same on every run.
    let seed = 12345;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const pieces = ['word', ' ', ' ', '\n', '\n\n', '😀', '```q\n', '\n```\n', 'ünïcode', 'x'.repeat(30), '  ', '\t'];
    const sample = (): string => Array.from({ length: Math.floor(random() * 120) }, () => pieces[Math.floor(random() * pieces.length)]).join('');

    it('always gives non-empty parts within the limit, without broken surrogate pairs, keeping all visible text', () => {
      for (let round = 0; round < 400; round++) {
        const text = sample();
        const limit = 16 + Math.floor(random() * 60);
        const parts = splitReply(text, limit);
        for (const part of parts) {
          expect(part.trim(), JSON.stringify({ text, limit, part })).to.not.equal('');
          expect(part.length, JSON.stringify({ text, limit, part })).to.be.at.most(limit);
          expect(hasBrokenPair(part), JSON.stringify({ text, limit, part })).to.equal(false);
        }
        // Cutting a long block adds fences (the only source of backticks and of "q" here); all else is kept, in order.
        const unfenced = (t: string): string => visible(t).replace(/[`q]/g, '');
        expect(unfenced(parts.join('')), JSON.stringify({ text, limit })).to.equal(unfenced(text));
      }
    });
  });

  it('rejects a limit below 2, which could not hold an emoji', () => {
    expect(() => splitReply('text', 1)).to.throw(RangeError);
    expect(() => splitReply('text', 2.5)).to.throw(RangeError);
  });
});
