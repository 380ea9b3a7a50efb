import { describe, expect, it } from 'vitest';
import { ApiError, errorMessage, NETWORK_FAILURE_TEXT, NetworkError } from './errors';

describe('error texts (docs/screens.md#error-texts)', () => {
  it("a call with no answer reads the screen's own text, else a plain sentence, never Failed to fetch", () => {
    const offline = new NetworkError('Failed to fetch');
    expect(errorMessage(offline, 'Failed to load trading data', 'An unexpected error occurred')).toBe(
      'An unexpected error occurred',
    );
    expect(errorMessage(offline, 'Failed to load trading platform data')).toBe(NETWORK_FAILURE_TEXT);
    expect(NETWORK_FAILURE_TEXT).toBe("Can't reach the server. Check your connection.");
  });

  it("keeps the spec's order otherwise: the server's text, the failure text, the exception's message", () => {
    expect(errorMessage(new ApiError(422, 'X', 'Insufficient free margin', {}), 'Failed', 'Unexpected')).toBe(
      'Insufficient free margin',
    );
    expect(errorMessage(new ApiError(500, 'X', undefined, {}), 'Failed', 'Unexpected')).toBe('Failed');
    expect(errorMessage(new Error('boom'), 'Failed', 'Unexpected')).toBe('boom');
    expect(errorMessage(new Error(''), 'Failed', 'Unexpected')).toBe('Unexpected');
  });
});
