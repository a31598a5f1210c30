import { createPublicClient, createWalletClient, http, defineChain } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
const url = process.argv[2]!;
const chain = defineChain({ id: 8453, name: 'x', nativeCurrency: { name: 'E', symbol: 'E', decimals: 18 }, rpcUrls: { default: { http: [url] } } });
const acct = privateKeyToAccount('0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba');
const pc = createPublicClient({ chain, transport: http() });
const wc = createWalletClient({ chain, transport: http(), account: acct });
const probe = async () => {
  const lat: number[] = [];
  for (let i = 0; i < 15; i++) {
    const hash = await wc.sendTransaction({ to: acct.address, value: 0n });
    const t = performance.now();
    for (;;) { const r = await pc.getTransactionReceipt({ hash }).catch(() => null); if (r) break; await new Promise((r) => setTimeout(r, 1)); }
    lat.push(performance.now() - t);
  }
  lat.sort((a, b) => a - b); return lat[7]!.toFixed(1);
};
(async () => {
  let nonce = await pc.getTransactionCount({ address: acct.address });
  for (const n of [0, 300, 600, 600]) {
    for (let i = 0; i < n; i++) { const h = await wc.sendTransaction({ to: acct.address, value: 0n, nonce: nonce++ }); }
    nonce = await pc.getTransactionCount({ address: acct.address }) + 15;
    console.log(url, 'after +', n, 'median receipt ms', await probe());
    nonce = await pc.getTransactionCount({ address: acct.address });
  }
})();
