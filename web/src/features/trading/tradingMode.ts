import { demoOperations } from '@pipdesk/contract';
import { type ApiClient, api, errorMessage } from '../../api';

/** docs/screens.md#trading-mode: the client trades live; demo exists only as a refusal. */
export type TradingMode = 'live' | 'demo';

/** docs/screens.md#error-texts: switching to demo mode. */
export const DEMO_MODE_TEXT = 'Demo trading mode not yet implemented';

/**
 * The client's trading mode (docs/screens.md#trading-mode), live by default, with no control on
 * screen. Asking for demo mode asks the server for the demo account (GET demo/account/status/,
 * which answers 400 DEMO_NOT_IMPLEMENTED) and fails with the text of docs/api.md#demo-calls; the mode stays live.
 */
export class TradingModeSwitch {
  private current: TradingMode = 'live';

  constructor(private readonly client: Pick<ApiClient, 'call'>) {}

  get mode(): TradingMode {
    return this.current;
  }

  /** Resolves once in `mode`; rejects with an Error whose message is the text to show. */
  readonly switchTo = async (mode: TradingMode): Promise<void> => {
    if (mode === 'live') {
      this.current = 'live';
      return;
    }
    try {
      await this.client.call(demoOperations.demoAccountStatus);
    } catch (err) {
      throw new Error(errorMessage(err, DEMO_MODE_TEXT));
    }
    // Should the server ever have a demo account, this client still has no demo screens or calls to use it.
    throw new Error(DEMO_MODE_TEXT);
  };
}

/** The app's one trading-mode switch. */
export const tradingMode = new TradingModeSwitch(api);

/** The current trading mode and the switch (no screen offers it). */
export function useTradingMode(modeSwitch: TradingModeSwitch = tradingMode): {
  mode: TradingMode;
  switchTo(mode: TradingMode): Promise<void>;
} {
  return { mode: modeSwitch.mode, switchTo: modeSwitch.switchTo };
}
