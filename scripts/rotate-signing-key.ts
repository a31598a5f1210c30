/**
 * `npm run keys:rotate [-- --activate-after <seconds>]`: rotates the signing key set in the database (collection
 * `signing_keys`, issue 25 §2; before, the key file DATA_DIR/signing-keys.json of issue 12 §3, which the database
 * imports). The new key signs from now (or after the delay); every older key stays published until now + delay +
 * max(QUOTE_TTL_SECONDS, RECEIPT_TTL_SECONDS), the longest validity of anything it signed. Every API process on the
 * database uses the new set within 5 s (KEY_SET_RECHECK_MS). Needs MONGODB_URI / MONGODB_DB (and
 * SIGNING_KEYS_ENCRYPTION_KEY when the API has it) as the API gets them. With SIGNING_KEYS set, the keys are not in
 * the database: rotate them in the environment.
 */
import { loadConfig } from '../src/config';
import { connectDatabase } from '../src/db';
import { rotateSigningKeys } from '../src/signing/keyStore';

async function main(): Promise<void> {
  const config = loadConfig();
  if (config.SIGNING_KEYS)
    throw new Error('SIGNING_KEYS is set: add the new key to it (see docs/api.md, "Signed quotes and receipts")');
  const i = process.argv.indexOf('--activate-after');
  const activateAfterSeconds = i > 0 ? Number(process.argv[i + 1]) : 0;
  if (!Number.isInteger(activateAfterSeconds) || activateAfterSeconds < 0)
    throw new Error('--activate-after takes whole seconds');
  const db = await connectDatabase(config.MONGODB_URI, config.MONGODB_DB);
  try {
    const { kid, keys } = await rotateSigningKeys(config, db, { activateAfterSeconds });
    console.log(`new signing key ${kid}; published keys:`);
    for (const k of keys)
      console.log(
        `  ${k.kid}${k.not_before ? ` signs from ${k.not_before}` : ''}${k.retire_after ? ` retired, published until ${k.retire_after}` : ''}`,
      );
  } finally {
    await db.close();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
