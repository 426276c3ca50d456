import { AiCallFailed } from '../../src/domain/ai/ai-call-failed.js';
import type { AudioClip, Transcriber } from '../../src/ports/transcriber.js';

/** A Transcriber in memory: "hears" the clip's bytes as UTF-8 text (so a test chooses the words), and records each clip. */
export class FakeTranscriber implements Transcriber {
  readonly clips: AudioClip[] = [];
  /** Failures thrown first, in order. */
  readonly failures: AiCallFailed[] = [];

  async transcribe(clip: AudioClip, signal?: AbortSignal): Promise<string> {
    signal?.throwIfAborted();
    this.clips.push(clip);
    const failure = this.failures.shift();
    if (failure) throw failure;
    return new TextDecoder().decode(clip.data).trim();
  }

  /** Makes the next call fail as a provider that answers `status`. */
  failNext(reason: 'unavailable' | 'refused' | 'unreachable', status?: number): void {
    this.failures.push(new AiCallFailed(reason, `transcription failed (${reason})`, { httpStatus: status }));
  }
}
