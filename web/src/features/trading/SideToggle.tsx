import { ORDER_SIDES, type OrderSide } from '@pipdesk/contract';
import { useId } from 'react';

export interface SideToggleProps {
  value: OrderSide;
  onChange: (side: OrderSide) => void;
  disabled?: boolean;
  /** The group's label ("Side"). */
  label?: string;
}

/** BUY / SELL as one control: two radio buttons drawn as a segmented switch (green buy, red sell). */
export function SideToggle({ value, onChange, disabled = false, label = 'Side' }: SideToggleProps) {
  const name = useId();
  const labelId = `${name}-label`;
  return (
    <div className="field">
      <span className="field__label" id={labelId}>
        {label}
      </span>
      <div className="side-toggle" role="radiogroup" aria-labelledby={labelId}>
        {ORDER_SIDES.map((side) => (
          <label key={side} className={`side-toggle__option side-toggle__option--${side.toLowerCase()}`}>
            <input
              type="radio"
              name={name}
              value={side}
              checked={value === side}
              disabled={disabled}
              onChange={() => onChange(side)}
            />
            <span>{side}</span>
          </label>
        ))}
      </div>
    </div>
  );
}
