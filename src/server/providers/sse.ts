/**
 * Yields the `data:` payloads of a Server-Sent Events stream as they arrive. Each event's data
 * lines are joined; comments and other fields are skipped. An event (or a line) that grows past
 * `maxEventChars` without ending throws, so a provider that never sends a line break cannot make
 * the gateway buffer without bound.
 */
export async function* sseData(body: ReadableStream<Uint8Array>, maxEventChars: number): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffered = "";
  let data: string[] = [];
  let dataChars = 0;
  for await (const chunk of body) {
    buffered += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, buffered[newline - 1] === "\r" ? newline - 1 : newline);
      buffered = buffered.slice(newline + 1);
      if (line === "") {
        if (data.length > 0) yield data.join("\n");
        data = [];
        dataChars = 0;
      } else if (line.startsWith("data:")) {
        const payload = line.slice(line[5] === " " ? 6 : 5);
        data.push(payload);
        dataChars += payload.length;
      }
    }
    if (dataChars + buffered.length > maxEventChars) throw new Error(`a stream event passed ${maxEventChars} characters`);
  }
  if (data.length > 0) yield data.join("\n");
}
