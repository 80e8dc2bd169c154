// translate process: configuration, wiring, listen, graceful shutdown. No database.
import './instrument.js';
import { createRuntime, exitOnStartupError, loadConfig } from '@svc/service-kit';
import { createAnthropicTranslator } from './clients/ai-translator.js';
import { buildApp } from './app.js';
import { TRANSLATE_LIMIT_PER_MINUTE, configSchema } from './config.js';

async function main(): Promise<void> {
  const config = loadConfig(configSchema);
  const rt = createRuntime('translate', config);
  const translator = config.ANTHROPIC_API_KEY
    ? createAnthropicTranslator({
        apiKey: config.ANTHROPIC_API_KEY,
        baseURL: config.ANTHROPIC_BASE_URL,
        model: config.ANTHROPIC_MODEL,
        timeoutMs: config.TRANSLATE_AI_TIMEOUT_MS,
        maxRetries: config.TRANSLATE_AI_MAX_RETRIES,
      })
    : undefined;
  if (!translator)
    rt.logger.warn('ANTHROPIC_API_KEY is not set: translations that need the AI answer 503');
  if (config.TRANSLATE_RATE_LIMIT_PER_MINUTE !== TRANSLATE_LIMIT_PER_MINUTE) {
    rt.logger.warn(
      { perMinute: config.TRANSLATE_RATE_LIMIT_PER_MINUTE },
      'translate rate limit changed (benchmark setting)',
    );
  }
  const app = buildApp({
    logger: rt.logger,
    metrics: rt.metrics,
    redis: rt.redis,
    redisPrefix: config.REDIS_PREFIX,
    translator,
    rateLimitPerMinute: config.TRANSLATE_RATE_LIMIT_PER_MINUTE,
    trustProxy: config.TRUSTED_PROXIES,
  });
  await rt.serve(app);
}

main().catch(exitOnStartupError('translate'));
