import { type ComponentPropsWithRef, cloneElement, isValidElement, type ReactElement, type ReactNode, useId } from 'react';

interface ControlProps {
  id?: string;
  'aria-describedby'?: string;
  'aria-invalid'?: boolean;
}

export interface FieldProps {
  label: ReactNode;
  /** Help under the control ("Minimum 0.01, Maximum 100"). */
  hint?: ReactNode;
  /** A validation message; marks the control invalid. */
  error?: ReactNode;
  /** One control (Input, Select, ...); it receives the id and the descriptions. */
  children: ReactElement<ControlProps>;
  className?: string;
}

/** A labelled form control with its hint and error wired for screen readers. */
export function Field({ label, hint, error, children, className }: FieldProps) {
  const autoId = useId();
  const id = (isValidElement(children) && children.props.id) || autoId;
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [children.props['aria-describedby'], hintId, errorId].filter(Boolean).join(' ') || undefined;
  return (
    <div className={['field', className].filter(Boolean).join(' ')}>
      <label className="field__label" htmlFor={id}>
        {label}
      </label>
      {cloneElement(children, {
        id,
        'aria-describedby': describedBy,
        'aria-invalid': error ? true : children.props['aria-invalid'],
      })}
      {hint && (
        <p className="field__hint" id={hintId}>
          {hint}
        </p>
      )}
      {error && (
        <p className="field__error" id={errorId}>
          {error}
        </p>
      )}
    </div>
  );
}

export function Input({ className, ...rest }: ComponentPropsWithRef<'input'>) {
  return <input className={['input', className].filter(Boolean).join(' ')} {...rest} />;
}

export function Select({ className, children, ...rest }: ComponentPropsWithRef<'select'>) {
  return (
    <select className={['input', 'select', className].filter(Boolean).join(' ')} {...rest}>
      {children}
    </select>
  );
}
