import { Alert, Button, Spinner } from '../../components';
import { NEWS_FAILED_TEXT } from './articles';

export function NewsLoading() {
  return (
    <div className="news-state" role="status">
      <Spinner />
      <span>Loading news...</span>
    </div>
  );
}

export function NewsEmpty({ children }: { children: string }) {
  return <p className="news-state news-state--empty">{children}</p>;
}

/** The docs/screens.md#error-texts text, with a way to try again. */
export function NewsFailed({ onRetry }: { onRetry: () => void }) {
  return (
    <Alert
      tone="error"
      actions={
        <Button size="sm" onClick={onRetry}>
          Try Again
        </Button>
      }
    >
      {NEWS_FAILED_TEXT}
    </Alert>
  );
}
