import { readVolume, type Volume } from "./volume.ts";

export {
  DEFAULT_REQUESTS_PER_DAY, MAX_REQUESTS_PER_DAY, REQUESTS_PER_USER_PER_DAY, type Volume,
} from "./volume.ts";

// Reads the spec's estimator hints out of free text. Keyword rules, deliberately simple and
// predictable: docs/decisions.md ("Estimator") states them in prose, and the unit tests pin them.

export interface UsageHints {
  volume: Volume;
  /** "code": more input and more output per request. */
  code: boolean;
  /** "document" or "analysis": more input per request. */
  documents: boolean;
  /** "extraction": less output per request. */
  extraction: boolean;
  /** "cheap" or "high volume": the budget model. */
  cheap: boolean;
  /** "reason" or "complex": the frontier model. */
  reasoning: boolean;
  /** A long prompt sent again with every request (a system prompt, an agent's history): mostly cache reads. */
  repeatedPrompt: boolean;
}

const FLAGS = {
  code: /\bcod(e|es|ed|ing|er|ers|ebase)\b/,
  documents: /\bdocument\w*|\banaly[sz]\w*/,
  extraction: /\bextract\w*/,
  cheap: /\bcheap\w*|\bhigh[\s-]*volumes?\b|\blow[\s-]*cost\b/,
  reasoning: /\breason(s|ed|ing)?\b|\bcomplex\w*/,
  repeatedPrompt: /\bsystem prompts?\b|\b(same|long|shared|fixed|repeated)\s+(\w+\s+)?(prompts?|instructions|context)\b|\bagents?\b|\bagentic\b|\bclaude code\b|\bcach(e|es|ed|ing)\b/,
} as const;

/** The spec's estimator hints found in `text` (case-insensitive). */
export function readUsageHints(text: string): UsageHints {
  const lower = text.toLowerCase();
  return {
    volume: readVolume(text).volume,
    code: FLAGS.code.test(lower),
    documents: FLAGS.documents.test(lower),
    extraction: FLAGS.extraction.test(lower),
    cheap: FLAGS.cheap.test(lower),
    reasoning: FLAGS.reasoning.test(lower),
    repeatedPrompt: FLAGS.repeatedPrompt.test(lower),
  };
}
