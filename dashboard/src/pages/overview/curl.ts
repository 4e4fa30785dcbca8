/** The test requests the overview offers, with the Messages API's real base URL. */
export interface CurlExample {
  /** As shown: one option a line. */
  readonly shown: string;
  /** As copied: one line, pasteable anywhere. */
  readonly oneLine: string;
}

function example(lines: readonly string[]): CurlExample {
  return { shown: lines.join(' \\\n  '), oneLine: lines.join(' ') };
}

/** POST /messages: one message. */
export const singleSend = (base: string): CurlExample =>
  example([
    `curl -X POST ${base}/messages`,
    '-H "Authorization: Bearer $API_KEY"',
    '-H "Content-Type: application/json"',
    '-d \'{"message": "Hello"}\'',
  ]);

/** POST /messages/batch: 1 to 100 messages in one request, all accepted or none. */
export const batchSend = (base: string): CurlExample =>
  example([
    `curl -X POST ${base}/messages/batch`,
    '-H "Authorization: Bearer $API_KEY"',
    '-H "Content-Type: application/json"',
    '-d \'{"messages": [{"message": "Hello"}, {"message": "World"}]}\'',
  ]);
