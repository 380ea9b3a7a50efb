import { Alert } from './Alert';
import { Button } from './Button';
import { Spinner } from './LoadingScreen';

export interface LoadStateProps {
  /** The box's class (it sits over or under the figure it speaks for). */
  className: string;
  loading: boolean;
  /** "Loading chart..." */
  loadingText: string;
  /** The failure's text, or null when the data loaded. */
  error: string | null;
  onRetry: () => void;
  /** A retry is on its way: Try Again shows it is busy. */
  retrying?: boolean;
  /** The text when the data loaded with nothing to show, or null. */
  empty: string | null;
}

/**
 * What a chart (or any figure) shows instead of its data: a spinner while it loads, the failure
 * with Try Again, or the empty text; nothing once there is data to show.
 */
export function LoadState({ className, loading, loadingText, error, onRetry, retrying, empty }: LoadStateProps) {
  if (loading) {
    return (
      <div className={className} role="status">
        <Spinner />
        <span>{loadingText}</span>
      </div>
    );
  }
  if (error !== null) {
    return (
      <div className={className}>
        <Alert
          tone="error"
          actions={
            <Button size="sm" onClick={onRetry} busy={retrying}>
              Try Again
            </Button>
          }
        >
          {error}
        </Alert>
      </div>
    );
  }
  return empty === null ? null : <p className={className}>{empty}</p>;
}
