import { PageHeading } from '../components/parts';
import { href } from '../router';

export function NotFoundPage({ path }: { readonly path: string }) {
  return (
    <>
      <PageHeading title="Page not found" />
      <p>There is no page at <code>{path}</code>.</p>
      <p><a href={href.keys}>Go to your API keys</a></p>
    </>
  );
}
