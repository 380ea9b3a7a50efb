import { Alert, Button } from '../../components';

/** docs/screens.md#dashboard: shown instead of the trading panels when the trader profile or the account is missing. */
export const TRADING_NOT_AVAILABLE_TITLE = 'Trading Not Available';
export const TRADING_NOT_AVAILABLE_TEXT = 'Please complete your registration process to access trading.';

export function TradingNotAvailable() {
  return (
    <Alert tone="warning" className="trading-not-available">
      {/* One sentence, as docs/screens.md#dashboard words it: "Trading Not Available: Please complete ..." */}
      <strong>{TRADING_NOT_AVAILABLE_TITLE}:</strong> {TRADING_NOT_AVAILABLE_TEXT}
    </Alert>
  );
}

export interface ErrorBoxProps {
  message: string;
  onRetry: () => void;
  /** Shows Dismiss when given. */
  onDismiss?: () => void;
  /** The retry is on its way. */
  retrying?: boolean;
}

/** The docs/screens.md#error-texts generic error box: the message, Try Again and Dismiss. */
export function ErrorBox({ message, onRetry, onDismiss, retrying = false }: ErrorBoxProps) {
  return (
    <Alert
      tone="error"
      actions={
        <>
          <Button size="sm" variant="primary" onClick={onRetry} busy={retrying}>
            Try Again
          </Button>
          {onDismiss && (
            <Button size="sm" variant="ghost" onClick={onDismiss}>
              Dismiss
            </Button>
          )}
        </>
      }
    >
      {message}
    </Alert>
  );
}
