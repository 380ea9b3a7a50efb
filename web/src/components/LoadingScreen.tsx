/** docs/screens.md#sign-in-and-session: the shared loading text while the platform starts. */
export const LOADING_TEXT = 'Loading trading platform...';

/** A decorative spinner; the text beside it says what is loading. */
export function Spinner() {
  return <span className="spinner" aria-hidden="true" />;
}

/** Full-screen loading state while the session is checked at start-up. */
export function LoadingScreen({ text = LOADING_TEXT }: { text?: string }) {
  return (
    <div className="loading-screen" role="status" aria-live="polite">
      <Spinner />
      <p>{text}</p>
    </div>
  );
}
