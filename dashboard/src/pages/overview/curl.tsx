import { CopyButton } from '../../components/parts';

/** A test request: `shown` one option a line, `oneLine` pasteable anywhere. */
function example(lines: readonly string[]) {
  return { shown: lines.join(' \\\n  '), oneLine: lines.join(' ') };
}

export type CurlExample = ReturnType<typeof example>;

const headers = (key: string) => [`-H "Authorization: Bearer ${key}"`, '-H "Content-Type: application/json"'];

export const singleSend = (base: string, key = '$API_KEY'): CurlExample =>
  example([`curl -X POST ${base}/messages`, ...headers(key), '-d \'{"message": "Hello"}\'']);

/** POST /messages/batch: 1 to 100 messages in one request, all accepted or none. */
export const batchSend = (base: string): CurlExample =>
  example([
    `curl -X POST ${base}/messages/batch`,
    ...headers('$API_KEY'),
    '-d \'{"messages": [{"message": "Hello"}, {"message": "World"}]}\'',
  ]);

export function CodeBlock({ example: { shown, oneLine }, label }: {
  readonly example: CurlExample;
  readonly label: string;
}) {
  return (
    <div className="code-block">
      <pre><code>{shown}</code></pre>
      <CopyButton value={oneLine} label={label} />
    </div>
  );
}
