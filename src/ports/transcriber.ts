/** Recorded speech to transcribe: a voice message or an audio file as the platform gave it. */
export interface AudioClip {
  readonly data: Uint8Array;
  /** Its MIME type (`audio/ogg` for Telegram's voice messages); tells the service the format. */
  readonly mediaType: string;
}

/**
 * Speech to text. The transcript is machine-made from what a user sent: callers treat it as
 * untrusted text, like the user's own messages.
 */
export interface Transcriber {
  /**
   * The words spoken in the clip ('' when the service heard none). Tried again as the AI
   * layer tries its calls (rate limits, server errors).
   * @throws AiCallFailed with its reason (`not_configured`, `unreachable`, `timeout`, `refused`, `unavailable`, `other`).
   */
  transcribe(clip: AudioClip, signal?: AbortSignal): Promise<string>;
}
