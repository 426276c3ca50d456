import type { AiClient, AiRequest, AiResponse } from '../../src/ports/ai-client.js';

/** Answers from a script; a step may call tools first (their results are recorded). */
export class ScriptedAiClient implements AiClient {
  readonly requests: AiRequest[] = [];
  readonly toolResults: unknown[] = [];
  constructor(private readonly script: Array<{ text: string; calls?: Array<{ name: string; input: Record<string, unknown> }> } | Error>) {}

  async generate(request: AiRequest): Promise<AiResponse> {
    this.requests.push(request);
    const step = this.script.shift() ?? { text: 'ok' };
    if (step instanceof Error) throw step;
    for (const call of step.calls ?? []) {
      const tool = request.tools?.find((t) => t.name === call.name);
      if (!tool) throw new Error(`no tool ${call.name}`);
      this.toolResults.push(await tool.execute(call.input));
    }
    return { text: step.text, steps: 1 + (step.calls?.length ?? 0), toolCalls: (step.calls ?? []).map((c) => ({ name: c.name, input: c.input })) };
  }
}
