import { JOURNAL_RATING_MAX } from '@pipdesk/contract';
import { useId } from 'react';
import { Button } from '../../components';

const STARS = Array.from({ length: JOURNAL_RATING_MAX }, (_, i) => i + 1);

export interface StarRatingProps {
  /** 1–5, or null when not rated. */
  value: number | null;
  onChange: (value: number | null) => void;
  /** Names the group for screen readers ("Rating"). */
  label: string;
  disabled?: boolean;
}

/**
 * Stars as a group of radio buttons: Tab reaches the group, the arrow keys move between the
 * stars and Space picks one, as any radio group; "Clear rating" takes the rating away.
 */
export function StarRating({ value, onChange, label, disabled = false }: StarRatingProps) {
  const name = useId();
  return (
    <fieldset className="star-rating" disabled={disabled}>
      <legend className="star-rating__legend">{label}</legend>
      <div className="star-rating__stars">
        {STARS.map((n) => (
          <label key={n} className="star-rating__star" data-lit={value !== null && n <= value ? true : undefined}>
            <input type="radio" className="sr-only" name={name} value={n} checked={value === n} onChange={() => onChange(n)} />
            <span aria-hidden="true">★</span>
            <span className="sr-only">{n === 1 ? '1 star' : `${n} stars`}</span>
          </label>
        ))}
        {value !== null && (
          <Button size="sm" variant="ghost" className="star-rating__clear" onClick={() => onChange(null)}>
            Clear rating
          </Button>
        )}
      </div>
    </fieldset>
  );
}
