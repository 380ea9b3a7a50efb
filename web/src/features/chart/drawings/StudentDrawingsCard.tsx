import { type FxPair, TIMEFRAMES, type Timeframe } from '@pipdesk/contract';
import { lazy, Suspense, useId, useState } from 'react';
import { Button, Card, Select } from '../../../components';
import './drawings.css';

// The charting library is a third of the app's code: it loads when the instructor opens the chart.
const StudentDrawingsChart = lazy(() => import('./StudentDrawingsChart').then((m) => ({ default: m.StudentDrawingsChart })));

export interface StudentDrawingsCardProps {
  studentId: number;
  /** The pairs to choose from (the student's dashboard lists them). */
  pairs: readonly FxPair[];
}

/**
 * The "Drawings" section of an instructor's student page (DESIGN §18: instructors see a
 * student's drawings read-only): a pair and a timeframe, and the chart with the student's
 * drawings on it once opened.
 */
export function StudentDrawingsCard({ studentId, pairs }: StudentDrawingsCardProps) {
  const [open, setOpen] = useState(false);
  const [symbol, setSymbol] = useState<string | null>(null);
  const [timeframe, setTimeframe] = useState<Timeframe>('h1');
  const pairId = useId();
  const timeframeId = useId();
  const chosen = pairs.find((p) => p.symbol === symbol) ?? pairs.find((p) => p.symbol === 'EURUSD') ?? pairs[0];
  if (!chosen) return null;
  return (
    <Card
      title="Drawings"
      aria-label="Drawings"
      className="student-drawings"
      actions={
        <Button size="sm" variant="ghost" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
          {open ? 'Hide chart' : 'Show chart'}
        </Button>
      }
    >
      <div className="student-drawings__controls">
        <label htmlFor={pairId}>Pair</label>
        <Select id={pairId} value={chosen.symbol} onChange={(e) => setSymbol(e.target.value)}>
          {pairs.map((p) => (
            <option key={p.symbol} value={p.symbol}>
              {p.symbol}
            </option>
          ))}
        </Select>
        <label htmlFor={timeframeId}>Timeframe</label>
        <Select id={timeframeId} value={timeframe} onChange={(e) => setTimeframe(e.target.value as Timeframe)}>
          {TIMEFRAMES.map((t) => (
            <option key={t} value={t}>
              {t.toUpperCase()}
            </option>
          ))}
        </Select>
      </div>
      {open && (
        <Suspense fallback={null}>
          <StudentDrawingsChart studentId={studentId} symbol={chosen.symbol} digits={chosen.digits} timeframe={timeframe} />
        </Suspense>
      )}
    </Card>
  );
}
