import { expect } from 'chai';
import { DomainError } from '../../../src/domain/errors/domain-error.js';
import { parseJobRequest, readJobRequest } from '../../../src/domain/jobs/job-request.js';

describe('parseJobRequest', () => {
  const failure = (body: unknown): DomainError => {
    try {
      parseJobRequest(body);
    } catch (error) {
      return error as DomainError;
    }
    throw new Error('expected a validation error');
  };

  for (const [label, body] of [
    ['no body', undefined],
    ['an empty object', {}],
    ['an empty job', { job: '' }],
    ['a blank job', { job: '   ' }],
    ['a number', { job: 5 }],
    ['null', { job: null }],
    ['an array body', [{ job: 'x' }]],
  ] as const) {
    it(`refuses ${label} with "Missing job field"`, () => {
      const error = failure(body);
      expect(error.code).to.equal('invalid_input');
      expect(error.message).to.equal('Missing job field');
    });
  }

  it('keeps the job text and the optional overrides', () => {
    expect(parseJobRequest({ job: 'fix it', llm_provider: 'openai', llm_model: 'gpt' })).to.deep.equal({
      job: 'fix it',
      llmProvider: 'openai',
      llmModel: 'gpt',
    });
  });

  it('refuses a NUL character in any of its texts, naming the field', () => {
    expect(failure({ job: 'a\u0000b' }).message).to.equal('Field job must not contain NUL characters (U+0000)');
    expect(failure({ job: 'x', llm_provider: 'open\u0000ai' }).message).to.equal('Field llm_provider must not contain NUL characters (U+0000)');
    expect(failure({ job: 'x', llm_model: '\u0000' }).code).to.equal('invalid_input');
  });

  it('refuses a model name longer than a job keeps (200 characters), naming the field and the limit', () => {
    expect(failure({ job: 'x', llm_model: 'm'.repeat(201) }).message).to.equal('Field llm_model must be at most 200 characters');
    expect(parseJobRequest({ job: 'x', llm_model: 'é'.repeat(200) }).llmModel).to.have.length(200);
  });

  it('refuses a model name with a control character (a line break would be a line of its own in the job file a workflow reads)', () => {
    // C1 controls (U+0085 NEL is a line break too, U+009B a CSI) and Unicode's line and paragraph separators as well.
    for (const model of [
      'gpt\nid=evil',
      'gpt\r',
      'a\tb',
      'x\u001b[2J',
      'del\u007f',
      'gpt\u0085id=evil',
      'x\u009b2J',
      'c1\u0080',
      'gpt\u009f',
      'gpt\u2028id=evil',
      'gpt\u2029x',
    ]) {
      expect(failure({ job: 'x', llm_model: model }).message, JSON.stringify(model)).to.equal(
        'Field llm_model must not contain control characters (line breaks, tabs, NUL)',
      );
    }
  });

  it('refuses a model name that would leave its place in a provider URL (Google puts the model in the path: ../, ?, #, %, \\)', () => {
    // With LLM_PROVIDER=google, llm_model "x/../../../other?alt=1#" made the gateway POST to
    // /other?alt=1 on the provider's host with GOOGLE_API_KEY: a caller chose the path.
    const message =
      'Field llm_model must be a model name: no "?", "#", "%", "\\" or whitespace, and no empty, "." or ".." part between "/" (the model is a part of the provider\'s URL)';
    for (const model of [
      '../../evil',
      'x/../../../other?alt=1#',
      'gemini?alt=sse',
      'gemini#x',
      '%2e%2e/%2e%2e/enc',
      'a\\..\\b',
      '.',
      '..',
      'models/./x',
      'a//b',
      '/abs',
      'trailing/',
      'two words',
    ]) {
      expect(failure({ job: 'x', llm_model: model }).message, JSON.stringify(model)).to.equal(message);
    }
    // The names providers use stay accepted: Hugging Face and OpenRouter paths, Ollama tags,
    // Bedrock and Vertex ids, Google's tuned models, dots in versions.
    for (const model of [
      'gpt-4.1',
      'claude-sonnet-4-5',
      'gemini-2.5-pro',
      'tunedModels/my-model-123',
      'meta-llama/Llama-3.1-8B-Instruct',
      'anthropic/claude-3.5-sonnet:beta',
      'llama3.1:8b-instruct-q4_K_M',
      'anthropic.claude-3-5-sonnet-20240620-v1:0',
      'claude-3-5-sonnet@20240620',
      'é-model',
    ]) {
      expect(parseJobRequest({ job: 'x', llm_model: model }).llmModel, model).to.equal(model);
    }
  });

  it('names an override of the wrong type', () => {
    expect(failure({ job: 'x', llm_model: 3 }).message).to.equal('Field llm_model must be a non-empty string');
  });

  it('readJobRequest returns, without throwing, what parseJobRequest returns or throws', () => {
    for (const body of [undefined, {}, { job: ' ' }, { job: 'a\u0000b' }, { job: 'x', llm_provider: '' }, { job: 'x', llm_model: 'm\u0000' }]) {
      const read = readJobRequest(body);
      expect(read, JSON.stringify(body)).to.be.instanceOf(DomainError);
      expect((read as DomainError).message, JSON.stringify(body)).to.equal(failure(body).message);
    }
    const body = { job: 'fix it', llm_model: 'gpt' };
    expect(readJobRequest(body)).to.deep.equal(parseJobRequest(body));
  });
});
