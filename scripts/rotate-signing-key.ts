/**
 * `npm run keys:rotate [-- --activate-after <seconds>]`: rotates the key file DATA_DIR/signing-keys.json (issue 12
 * §3). The new key signs from now (or after the delay); every older key stays published until now + delay +
 * max(QUOTE_TTL_SECONDS, RECEIPT_TTL_SECONDS), the longest validity of anything it signed. Running API processes
 * re-read the file within seconds. With SIGNING_KEYS set, the keys are not in a file: rotate them in the environment.
 */
import { loadConfig } from '../src/config';
import { rotateKeyFile } from '../src/signing/keys';

async function main(): Promise<void> {
  const config = loadConfig();
  if (config.SIGNING_KEYS)
    throw new Error('SIGNING_KEYS is set: add the new key to it (see README, "Signed quotes and receipts")');
  const i = process.argv.indexOf('--activate-after');
  const activateAfterSeconds = i > 0 ? Number(process.argv[i + 1]) : 0;
  if (!Number.isInteger(activateAfterSeconds) || activateAfterSeconds < 0)
    throw new Error('--activate-after takes whole seconds');
  const retain = Math.max(config.QUOTE_TTL_SECONDS, config.RECEIPT_TTL_SECONDS);
  const { kid, keys } = await rotateKeyFile(config.DATA_DIR, retain, { activateAfterSeconds });
  console.log(`new signing key ${kid}; published keys:`);
  for (const k of keys)
    console.log(
      `  ${k.kid}${k.not_before ? ` signs from ${k.not_before}` : ''}${k.retire_after ? ` retired, published until ${k.retire_after}` : ''}`,
    );
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
