/** Reading the buyer's text (src/products/deliverables/parse.ts, robots.ts): scales, units, durations, zones, hours. */
import {
  parseCount,
  parseDurationMinutes,
  parseRate,
  parseTimeZone,
  parseWeeklyHours,
  splitServiceDuration,
} from '../../src/products/deliverables/parse';
import { findRobot, parseMaxMassKg, parseRosDistro, visionNeed } from '../../src/products/deliverables/robots';

test.each([
  ['5,000 orders per day', 5000, 'orders'],
  ['5k/day', 5000, null],
  ['5 000 orders/day', 5000, 'orders'],
  ['about 2.5M records a month', 83333, 'records'],
  ['200 tickets an hour', 4800, 'tickets'],
  ['1,200 orders daily', 1200, 'orders'],
  ['~1M events per month', 33333, 'events'],
])('rate %j → %i per day', (text, perDay, noun) => {
  expect(parseRate(text)).toMatchObject({ perDay, noun });
});

test('a count without a period is no rate; its scale still reads', () => {
  expect(parseRate('20,000 SKUs')).toBeNull();
  expect(parseCount('20,000 SKUs')).toBe(20000);
  expect(parseCount('2.5 million')).toBe(2_500_000);
});

test.each([
  ['60-minute Initial assessment', 'Initial assessment', 60, null],
  ['Initial assessment (60 min)', 'Initial assessment', 60, null],
  ['Deep tissue massage – 1.5 hours', 'Deep tissue massage', 90, null],
  ['1h30 colour', 'Colour', 90, null],
  ['Kids cut (20 minutes) £15', 'Kids cut', 20, '£15'],
  ['Nail clip 15min $15', 'Nail clip', 15, '$15'],
  ['Nail clip15min', 'Nail clip', 15, null],
  ['Swedish massage 60 min - $80', 'Swedish massage', 60, '$80'],
  ['Cleaning', 'Cleaning', null, null],
])('service %j', (item, name, minutes, price) => {
  expect(splitServiceDuration(item)).toEqual({ name, minutes, price });
});

test('durations in words', () => {
  expect(parseDurationMinutes('half an hour')).toBe(30);
  expect(parseDurationMinutes('an hour')).toBe(60);
  expect(parseDurationMinutes('2 hrs')).toBe(120);
});

test.each([
  ['Eastern time', 'America/New_York'],
  ['America/Denver', 'America/Denver'],
  ['we are on CET', 'Europe/Berlin'],
  ['9-5 PT', 'America/Los_Angeles'],
  ['UTC+4', 'Etc/GMT-4'],
  ['GMT-5', 'Etc/GMT+5'],
  ['Pacific Dental', null],
  ['Melbourne time', 'Australia/Melbourne'],
  ["We're in Denver", 'America/Denver'],
  ['based in Lisbon', 'Europe/Lisbon'],
  ['Christmas party', null],
  ['Boulangerie et pâtisserie', null],
  ['Lima beans catering', null],
  ['London Fog latte bar', null],
  ['in Lima', 'America/Lima'],
  ['Lima time', 'America/Lima'],
  ['Lima, Peru', 'America/Lima'],
  ['Brisbane-based physio', 'Australia/Brisbane'],
])('time zone %j → %s', (text, zone) => {
  expect(parseTimeZone(text)).toBe(zone);
});

test('weekly hours: day ranges, am/pm, "9-5"', () => {
  expect(parseWeeklyHours('Mon-Fri 8am-6pm, Sat 9:00-13:00')).toMatchObject({
    mon: [['08:00', '18:00']],
    fri: [['08:00', '18:00']],
    sat: [['09:00', '13:00']],
    sun: [],
  });
  expect(parseWeeklyHours('Monday to Thursday 08:00–18:00')).toMatchObject({ thu: [['08:00', '18:00']], fri: [] });
  expect(parseWeeklyHours('Mon-Fri 9-5')?.mon).toEqual([['09:00', '17:00']]);
  expect(parseWeeklyHours('by appointment')).toBeNull();
  expect(parseWeeklyHours('Open Tue-Sat 9am to 5pm')).toMatchObject({
    mon: [],
    tue: [['09:00', '17:00']],
    sat: [['09:00', '17:00']],
  });
  expect(parseWeeklyHours('Tue, Thu & Sat 10-4')).toMatchObject({
    tue: [['10:00', '16:00']],
    wed: [],
    sat: [['10:00', '16:00']],
  });
  expect(parseWeeklyHours('weekdays 9-5')?.fri).toEqual([['09:00', '17:00']]);
  expect(parseWeeklyHours('9am-5pm Tue-Sat')).toMatchObject({ mon: [], tue: [['09:00', '17:00']] });
  expect(parseWeeklyHours('Open daily 10am-8pm')?.sun).toEqual([['10:00', '20:00']]);
  // The opening time shares the closing time's pm when it comes before it ("1-5pm"); "9-5pm" opens in the morning.
  expect(parseWeeklyHours('Sat 1-5pm')?.sat).toEqual([['13:00', '17:00']]);
  expect(parseWeeklyHours('Sat 9-5pm')?.sat).toEqual([['09:00', '17:00']]);
});

test('a city field names the place wherever the city is in it', () => {
  expect(parseTimeZone('Shop 4, 12 Queen St, Brisbane QLD', { place: true })).toBe('Australia/Brisbane');
  expect(parseTimeZone('Shop 4, 12 Queen St, Brisbane QLD 4000')).toBe(null);
});

test('robots: models, distros, masses, vision', () => {
  expect(findRobot('UR10e cobot')?.payload_kg).toBe(12.5);
  expect(findRobot('a UR30')?.id).toBe('ur30');
  expect(findRobot('xArm 6')?.joints).toEqual(['joint1', 'joint2', 'joint3', 'joint4', 'joint5', 'joint6']);
  expect(parseRosDistro('ROS 2 Humble on an IPC')?.id).toBe('humble');
  expect(parseMaxMassKg('boxes of 12 lb and trays up to 3.5 kg')).toBe(5.443);
  expect(visionNeed('Bin picking of castings')?.kind).toBe('3d');
  expect(visionNeed('Move totes between stations')).toBeNull();
});
