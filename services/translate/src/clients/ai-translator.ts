// The AI behind translation: Anthropic's Messages API through the official SDK. Timeout
// and retries are bounded so a slow or failing provider answers the caller with a 500
// within seconds, never a hanging request.
import Anthropic from '@anthropic-ai/sdk';
import type { LanguageCode } from '@svc/types';
import { cleanTranslation, translationPrompt } from '../domain/translation-prompt.js';

export interface Translator {
  translate(text: string, target: LanguageCode): Promise<string>;
}

/** The AI failed (error answer, timeout, empty or cut-off reply): the route answers 500. */
export class TranslationFailed extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TranslationFailed';
  }
}

export interface AnthropicTranslatorOptions {
  apiKey: string;
  baseURL?: string;
  model: string;
  timeoutMs: number;
  maxRetries: number;
  /** Room for the longest answer: 2000 input characters can need ~4000 tokens in CJK. */
  maxTokens?: number;
}

export function createAnthropicTranslator(options: AnthropicTranslatorOptions): Translator {
  const client = new Anthropic({
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    timeout: options.timeoutMs,
    maxRetries: options.maxRetries,
  });
  return {
    async translate(text, target) {
      const prompt = translationPrompt(text, target);
      let message: Anthropic.Message;
      try {
        message = await client.messages.create({
          model: options.model,
          max_tokens: options.maxTokens ?? 4096,
          system: prompt.system,
          messages: [{ role: 'user', content: prompt.user }],
        });
      } catch (err) {
        throw new TranslationFailed('AI request failed', { cause: err });
      }
      // A cut-off reply would be served (and cached) as if it were the whole translation.
      if (message.stop_reason === 'max_tokens') throw new TranslationFailed('AI reply was cut off');
      const reply = message.content
        .map((block) => (block.type === 'text' ? block.text : ''))
        .join('');
      const translated = cleanTranslation(reply);
      if (translated === '') throw new TranslationFailed('AI reply was empty');
      return translated;
    },
  };
}
