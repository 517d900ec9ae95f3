const CR = 13;
const SPACE = 32;

/**
 * Yields the `data:` payloads of a Server-Sent Events stream as they arrive: after each read of
 * the body, those of the events it completed (so that what arrived together can be relayed
 * together). Each event's data lines are joined; comments and other fields are skipped. An
 * event (or a line) that grows past `maxEventChars` without ending throws, so a provider that
 * never sends a line break cannot make the gateway buffer without bound.
 */
export async function* sseData(body: ReadableStream<Uint8Array>, maxEventChars: number): AsyncGenerator<string[]> {
  const decoder = new TextDecoder();
  let buffered = "";
  let data: string[] = [];
  let dataChars = 0;
  for await (const chunk of body) {
    const events: string[] = [];
    buffered += decoder.decode(chunk, { stream: true });
    // Lines are read in place and the buffer cut once per chunk, not once per line.
    let start = 0;
    let newline: number;
    while ((newline = buffered.indexOf("\n", start)) >= 0) {
      const end = newline > start && buffered.charCodeAt(newline - 1) === CR ? newline - 1 : newline;
      if (end === start) {
        if (data.length > 0) events.push(data.join("\n"));
        data = [];
        dataChars = 0;
      } else if (buffered.startsWith("data:", start)) {
        const payload = buffered.slice(start + (buffered.charCodeAt(start + 5) === SPACE ? 6 : 5), end);
        data.push(payload);
        dataChars += payload.length;
      }
      start = newline + 1;
    }
    buffered = buffered.slice(start);
    if (events.length > 0) yield events;
    if (dataChars + buffered.length > maxEventChars) throw new Error(`a stream event passed ${maxEventChars} characters`);
  }
  if (data.length > 0) yield [data.join("\n")];
}
