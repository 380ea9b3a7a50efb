// The design system: every screen builds from these and the CSS tokens in tokens.css.
export { Alert, type AlertProps } from './Alert';
export { Badge, type BadgeProps, type Tone } from './Badge';
export { Button, type ButtonProps, type ButtonSize, type ButtonVariant, buttonClass } from './Button';
export { Card, type CardProps } from './Card';
export { CommitOnPauseInput, type CommitOnPauseInputProps } from './CommitOnPauseInput';
export { formatDate, formatDateTime } from './dates';
export { Field, type FieldProps, Input, Select } from './Field';
export { CloseIcon, LogoMark, MenuIcon, MoonIcon, SunIcon } from './icons';
export { LOADING_TEXT, LoadingScreen, Spinner } from './LoadingScreen';
export { LoadState, type LoadStateProps } from './LoadState';
export { Num, type NumProps, type NumTone } from './Num';
export { Page, type PageProps } from './Page';
export { Pagination, type PaginationProps } from './Pagination';
export { RangeButtons, type RangeButtonsProps } from './RangeButtons';
export { type Column, DataTable, type DataTableProps, Table, type TableProps } from './Table';
export { type Theme, ThemeProvider, ThemeToggle, useTheme } from './theme';
