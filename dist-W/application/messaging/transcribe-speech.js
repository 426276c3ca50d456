import { aiFailureReason } from '../../domain/ai/ai-call-failed.js';
import { isDomainError } from '../../domain/errors/domain-error.js';
export const CANNOT_READ_VOICE = 'Sorry, I cannot read voice messages: no transcription is set up for this bot. Please send your message as text.';
export const voiceTooLarge = (maxBytes) => `Sorry, that voice message is too large for me to transcribe (the limit is ${formatSize(maxBytes)}). Please send a shorter one, or text.`;
export const VOICE_FAILED = 'Sorry, I could not transcribe that voice message. Please try again, or send text.';
export const VOICE_SILENT = 'Sorry, I could not make out any words in that voice message.';
const formatSize = (bytes) => bytes >= 1024 * 1024 ? `${+(bytes / 1024 / 1024).toFixed(1)} MB` : bytes >= 1024 ? `${+(bytes / 1024).toFixed(1)} KB` : `${bytes} bytes`;
/** Whether an attachment is recorded speech: a voice message or an audio file. */
export const isSpeech = (attachment) => attachment.kind === 'voice' || attachment.kind === 'audio';
/**
 * The words of a voice message or audio file, or the sentence telling the user why there are
 * none: no transcription service (`voice` undefined), a recording over the limit (refused by
 * the size the platform told before it is downloaded, or while downloading), a failed call
 * (logged with its reason), or nothing heard. Never throws.
 */
export const transcribeSpeech = async (voice, platform, token, attachment, log) => {
    if (voice === undefined)
        return { problem: CANNOT_READ_VOICE };
    const { transcriber, maxBytes } = voice;
    if ((attachment.size ?? 0) > maxBytes)
        return { problem: voiceTooLarge(maxBytes) };
    try {
        const file = await platform.download(token, attachment.fileId, maxBytes);
        const transcript = await transcriber.transcribe({
            data: file.data,
            mediaType: attachment.mimeType ?? (attachment.kind === 'voice' ? 'audio/ogg' : 'audio/mpeg'),
        });
        log.info({ kind: attachment.kind, characters: transcript.length }, 'voice message transcribed');
        return transcript === '' ? { problem: VOICE_SILENT } : { transcript };
    }
    catch (error) {
        if (isDomainError(error) && error.code === 'payload_too_large')
            return { problem: voiceTooLarge(maxBytes) };
        log.warn({ err: error, kind: attachment.kind, reason: aiFailureReason(error) }, 'could not transcribe a voice message');
        return { problem: VOICE_FAILED };
    }
};
//# sourceMappingURL=transcribe-speech.js.map