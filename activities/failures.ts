import { ApplicationFailure } from '@temporalio/common';
import { InsufficientFundsError } from '../src/repos/wallets';
import { FailureType } from '../workflows/shared';

/**
 * A short wallet becomes a non-retryable `insufficient_funds` failure carrying balance and amount (micro-units);
 * any other error is returned unchanged, to be retried.
 */
export function asBusinessFailure(err: unknown): unknown {
  if (err instanceof InsufficientFundsError) {
    return ApplicationFailure.create({
      message: err.message,
      type: FailureType.insufficientFunds,
      nonRetryable: true,
      details: [{ balance_micros: err.balanceMicros, amount_micros: err.amountMicros }],
    });
  }
  return err;
}
