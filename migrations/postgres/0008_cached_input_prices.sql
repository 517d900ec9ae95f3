-- gpt-5.5: 1/10 of the input price (https://developers.openai.com/api/docs/pricing)
UPDATE models SET cached_input_nanos_per_mtok = ((input_nanos_per_mtok * 1 + 999999) / 1000000) * 100000
WHERE id = 'gpt-5.5' AND cached_input_nanos_per_mtok IS NULL;
--> statement-breakpoint
-- gpt-5: 1/10 of the input price (https://developers.openai.com/api/docs/pricing)
UPDATE models SET cached_input_nanos_per_mtok = ((input_nanos_per_mtok * 1 + 999999) / 1000000) * 100000
WHERE id = 'gpt-5' AND cached_input_nanos_per_mtok IS NULL;
--> statement-breakpoint
-- gpt-5.4: 1/10 of the input price (https://developers.openai.com/api/docs/pricing)
UPDATE models SET cached_input_nanos_per_mtok = ((input_nanos_per_mtok * 1 + 999999) / 1000000) * 100000
WHERE id = 'gpt-5.4' AND cached_input_nanos_per_mtok IS NULL;
--> statement-breakpoint
-- gpt-5.4-mini: 1/10 of the input price (https://developers.openai.com/api/docs/pricing)
UPDATE models SET cached_input_nanos_per_mtok = ((input_nanos_per_mtok * 1 + 999999) / 1000000) * 100000
WHERE id = 'gpt-5.4-mini' AND cached_input_nanos_per_mtok IS NULL;
--> statement-breakpoint
-- gpt-5.4-nano: 1/10 of the input price (https://developers.openai.com/api/docs/pricing)
UPDATE models SET cached_input_nanos_per_mtok = ((input_nanos_per_mtok * 1 + 999999) / 1000000) * 100000
WHERE id = 'gpt-5.4-nano' AND cached_input_nanos_per_mtok IS NULL;
--> statement-breakpoint
-- gpt-4.1: 1/4 of the input price (https://developers.openai.com/api/docs/pricing)
UPDATE models SET cached_input_nanos_per_mtok = ((input_nanos_per_mtok * 1 + 399999) / 400000) * 100000
WHERE id = 'gpt-4.1' AND cached_input_nanos_per_mtok IS NULL;
--> statement-breakpoint
-- gpt-4.1-mini: 1/4 of the input price (https://developers.openai.com/api/docs/pricing)
UPDATE models SET cached_input_nanos_per_mtok = ((input_nanos_per_mtok * 1 + 399999) / 400000) * 100000
WHERE id = 'gpt-4.1-mini' AND cached_input_nanos_per_mtok IS NULL;
--> statement-breakpoint
-- gpt-4.1-nano: 1/4 of the input price (https://developers.openai.com/api/docs/pricing)
UPDATE models SET cached_input_nanos_per_mtok = ((input_nanos_per_mtok * 1 + 399999) / 400000) * 100000
WHERE id = 'gpt-4.1-nano' AND cached_input_nanos_per_mtok IS NULL;
--> statement-breakpoint
-- o4-mini: 1/4 of the input price (https://developers.openai.com/api/docs/pricing)
UPDATE models SET cached_input_nanos_per_mtok = ((input_nanos_per_mtok * 1 + 399999) / 400000) * 100000
WHERE id = 'o4-mini' AND cached_input_nanos_per_mtok IS NULL;
--> statement-breakpoint
-- gpt-4o: 1/2 of the input price (https://developers.openai.com/api/docs/pricing)
UPDATE models SET cached_input_nanos_per_mtok = ((input_nanos_per_mtok * 1 + 199999) / 200000) * 100000
WHERE id = 'gpt-4o' AND cached_input_nanos_per_mtok IS NULL;
--> statement-breakpoint
-- deepseek-v4-pro: 1/120 of the input price (https://api-docs.deepseek.com/quick_start/pricing)
UPDATE models SET cached_input_nanos_per_mtok = ((input_nanos_per_mtok * 1 + 11999999) / 12000000) * 100000
WHERE id = 'deepseek-v4-pro' AND cached_input_nanos_per_mtok IS NULL;
--> statement-breakpoint
-- deepseek-v4-flash: 1/50 of the input price (https://api-docs.deepseek.com/quick_start/pricing)
UPDATE models SET cached_input_nanos_per_mtok = ((input_nanos_per_mtok * 1 + 4999999) / 5000000) * 100000
WHERE id = 'deepseek-v4-flash' AND cached_input_nanos_per_mtok IS NULL;
--> statement-breakpoint
-- deepseek-v3.2: 1/10 of the input price (https://api-docs.deepseek.com/quick_start/pricing)
UPDATE models SET cached_input_nanos_per_mtok = ((input_nanos_per_mtok * 1 + 999999) / 1000000) * 100000
WHERE id = 'deepseek-v3.2' AND cached_input_nanos_per_mtok IS NULL;
--> statement-breakpoint
-- deepseek-v3.2-speciale: 1/10 of the input price (https://api-docs.deepseek.com/quick_start/pricing)
UPDATE models SET cached_input_nanos_per_mtok = ((input_nanos_per_mtok * 1 + 999999) / 1000000) * 100000
WHERE id = 'deepseek-v3.2-speciale' AND cached_input_nanos_per_mtok IS NULL;
--> statement-breakpoint
-- kimi-k2.6: 16/95 of the input price (https://platform.kimi.ai/docs/pricing/chat-k26)
UPDATE models SET cached_input_nanos_per_mtok = ((input_nanos_per_mtok * 16 + 9499999) / 9500000) * 100000
WHERE id = 'kimi-k2.6' AND cached_input_nanos_per_mtok IS NULL;
--> statement-breakpoint
-- kimi-k2.5: 1/6 of the input price (https://platform.moonshot.ai/docs/pricing/chat)
UPDATE models SET cached_input_nanos_per_mtok = ((input_nanos_per_mtok * 1 + 599999) / 600000) * 100000
WHERE id = 'kimi-k2.5' AND cached_input_nanos_per_mtok IS NULL;
--> statement-breakpoint
-- grok-4-3: 4/25 of the input price (https://docs.x.ai/developers/models/grok-4.3)
UPDATE models SET cached_input_nanos_per_mtok = ((input_nanos_per_mtok * 4 + 2499999) / 2500000) * 100000
WHERE id = 'grok-4-3' AND cached_input_nanos_per_mtok IS NULL;
--> statement-breakpoint
-- grok-4-20-reasoning: 4/25 of the input price (https://docs.x.ai/developers/models/grok-4.20-0309)
UPDATE models SET cached_input_nanos_per_mtok = ((input_nanos_per_mtok * 4 + 2499999) / 2500000) * 100000
WHERE id = 'grok-4-20-reasoning' AND cached_input_nanos_per_mtok IS NULL;
--> statement-breakpoint
-- grok-4-1-fast-reasoning: 1/4 of the input price (https://docs.x.ai/developers/models/grok-4-1-fast-reasoning)
UPDATE models SET cached_input_nanos_per_mtok = ((input_nanos_per_mtok * 1 + 399999) / 400000) * 100000
WHERE id = 'grok-4-1-fast-reasoning' AND cached_input_nanos_per_mtok IS NULL;
