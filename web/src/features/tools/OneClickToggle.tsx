import { errorMessage } from '../../api';
import { useNotices } from '../../notices/NoticeProvider';
import { useChartSettings } from './useChartSettings';
import './tools.css';

export const ONE_CLICK_LABEL = 'One-click trading';
const ONE_CLICK_HINT = 'When on, the chart’s SELL and BUY buttons and the B and S keys trade at once, without a confirmation';

export interface OneClickToggleProps {
  /** The chart's small switch ("1-click"); the full words elsewhere (the Charts page's toolbar). */
  compact?: boolean;
}

/**
 * The one-click trading setting (docs/charting.md#one-click-trading-and-hotkeys): off by
 * default, kept with the trader's chart layout, so it is the same on every chart and device.
 */
export function OneClickToggle({ compact = false }: OneClickToggleProps) {
  const { settings, ready, saving, save } = useChartSettings();
  const notices = useNotices();
  const on = settings.one_click;

  async function toggle() {
    try {
      await save({ one_click: !on });
    } catch (err) {
      notices.notify({ tone: 'error', title: ONE_CLICK_LABEL, text: errorMessage(err, 'Could not save the setting') });
    }
  }

  return (
    <button
      type="button"
      role="switch"
      aria-checked={on}
      aria-label={compact ? ONE_CLICK_LABEL : undefined}
      title={ONE_CLICK_HINT}
      className="one-click-toggle"
      disabled={!ready || saving}
      onClick={() => void toggle()}
    >
      <span className="one-click-toggle__track" aria-hidden="true" />
      <span>{compact ? '1-click' : ONE_CLICK_LABEL}</span>
    </button>
  );
}
