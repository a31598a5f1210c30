import { generateDeliverables } from './src/products/deliverables';
const [svc, json] = [process.argv[2]!, process.argv[3]!];
for (const f of generateDeliverables({ orderId: 'ord_x', serviceId: svc, inputs: JSON.parse(json), issuedAt: '2026-03-01T10:00:00.000Z' })) {
  if (process.argv[4] && !f.name.includes(process.argv[4])) continue;
  console.log('=====', f.name); console.log(f.content.toString());
}
