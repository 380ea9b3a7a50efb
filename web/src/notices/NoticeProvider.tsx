import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useRef, useState } from 'react';
import { CloseIcon } from '../components';
import './notices.css';

export type NoticeTone = 'success' | 'info' | 'warning' | 'error';

/** One thing that happened, for the trader to read wherever they are (docs/screens.md#notices). */
export interface NoticeInput {
  /**
   * The event it reports (`order:21:FILLED`). The socket and this tab's own answer often
   * report the same event: a key already shown is not shown twice.
   */
  key?: string;
  tone: NoticeTone;
  title?: string;
  text: string;
  /** Stays until dismissed. Default: warnings and errors stay, the others leave after `NOTICE_TIMEOUT_MS`. */
  sticky?: boolean;
}

interface Notice extends NoticeInput {
  id: number;
}

export interface NotifyOptions {
  /** Replaces a shown notice with the same key instead of being skipped (this tab's own answer words it: docs/screens.md#error-texts). */
  replace?: boolean;
}

export interface Notices {
  notify(notice: NoticeInput, options?: NotifyOptions): void;
  /** The event is reported elsewhere on the screen (the dashboard's banner): drop its notice and skip later reports. */
  settle(key: string): void;
}

/** How long a success or info notice stays (paused while the pointer or focus is on the notices). */
export const NOTICE_TIMEOUT_MS = 8_000;
/** At most this many at once; the oldest goes first. */
export const MAX_NOTICES = 5;
/** Remembered keys, so a late duplicate stays quiet; the oldest are forgotten past this. */
const KEY_MEMORY = 500;

const NoticeContext = createContext<Notices | null>(null);

/**
 * Holds the notices of the signed-in app and shows them as toasts in one polite live region
 * (docs/screens.md#notices). Feature code reports through `useNotices().notify(...)`.
 */
export function NoticeProvider({ children }: { children: ReactNode }) {
  const [notices, setNotices] = useState<Notice[]>([]);
  const serial = useRef(0);
  const seen = useRef(new Set<string>());

  const remember = useCallback((key: string) => {
    const keys = seen.current;
    keys.delete(key);
    keys.add(key);
    if (keys.size > KEY_MEMORY) keys.delete(keys.values().next().value as string);
  }, []);

  const api = useMemo<Notices>(
    () => ({
      notify(input, { replace = false } = {}) {
        const { key } = input;
        if (key !== undefined && seen.current.has(key) && !replace) return;
        if (key !== undefined) remember(key);
        const notice: Notice = { ...input, id: ++serial.current };
        setNotices((shown) => {
          const others = key === undefined ? shown : shown.filter((n) => n.key !== key);
          return [...others, notice].slice(-MAX_NOTICES);
        });
      },
      settle(key) {
        remember(key);
        setNotices((shown) => shown.filter((n) => n.key !== key));
      },
    }),
    [remember],
  );

  const dismiss = useCallback((id: number) => setNotices((shown) => shown.filter((n) => n.id !== id)), []);

  return (
    <NoticeContext.Provider value={api}>
      {children}
      <NoticeViewport notices={notices} onDismiss={dismiss} />
    </NoticeContext.Provider>
  );
}

/** Reports results to the trader; only inside `<NoticeProvider>` (the signed-in app). */
export function useNotices(): Notices {
  const value = useContext(NoticeContext);
  if (!value) throw new Error('useNotices must be used inside <NoticeProvider>');
  return value;
}

function NoticeViewport({ notices, onDismiss }: { notices: readonly Notice[]; onDismiss: (id: number) => void }) {
  const [paused, setPaused] = useState(false);
  // A dismissed last notice takes the focus with it, often without a blur event.
  useEffect(() => {
    if (notices.length === 0) setPaused(false);
  }, [notices.length]);
  return (
    // The list is always in the page, so screen readers hear each notice added to it (a live
    // region that appears with its content is often not announced). Not role="status": the
    // pages have their own status lines.
    <section
      className="notices"
      aria-label="Notifications"
      onMouseEnter={() => setPaused(true)}
      onMouseLeave={() => setPaused(false)}
      onFocus={() => setPaused(true)}
      onBlur={() => setPaused(false)}
    >
      <ol className="notices__list" aria-live="polite" aria-relevant="additions text">
        {notices.map((notice) => (
          <NoticeItem key={notice.id} notice={notice} paused={paused} onDismiss={onDismiss} />
        ))}
      </ol>
    </section>
  );
}

function NoticeItem({ notice, paused, onDismiss }: { notice: Notice; paused: boolean; onDismiss: (id: number) => void }) {
  const sticky = notice.sticky ?? (notice.tone === 'warning' || notice.tone === 'error');
  useEffect(() => {
    if (sticky || paused) return;
    const timer = setTimeout(() => onDismiss(notice.id), NOTICE_TIMEOUT_MS);
    return () => clearTimeout(timer);
  }, [sticky, paused, notice.id, onDismiss]);
  return (
    <li className={`notice notice--${notice.tone}`}>
      <div className="notice__body">
        {notice.title && <p className="notice__title">{notice.title}</p>}
        <p className="notice__text">{notice.text}</p>
      </div>
      <button type="button" className="notice__dismiss" aria-label="Dismiss notification" onClick={() => onDismiss(notice.id)}>
        <CloseIcon />
      </button>
    </li>
  );
}
