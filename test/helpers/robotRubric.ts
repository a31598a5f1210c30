/**
 * The robot-control-system rubric checks (docs/rubrics/robot-control-system.md, issue 38 §4): what a robotics
 * integrator checks in a control-system pack, applied to generated orders (fast-check), not one golden file.
 *
 * The data-sheet figures come from src/products/deliverables/robots.ts (ROBOT_MODELS); the cycle model is re-derived
 * here from its documented assumptions so the deliverable's claims are checked, not echoed.
 */
import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import type { InputValue } from '../../src/products/deliverables';
import { ROBOT_MODELS, type RobotModel } from '../../src/products/deliverables/robots';
import { placeholderHits, type Files } from './rubrics';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const yamlLoad = (require('js-yaml') as { load: (text: string) => unknown }).load;

/** ISO 10218-1:2011 5.6: reduced speed ≤ 250 mm/s. */
const REDUCED_MM_S = 250;
/** EUR pallet (1200 x 800 mm), base 300 mm beside the long side, centred: far corner at sqrt(600² + 1100²). */
const PALLET_REACH_MM = Math.ceil(Math.hypot(600, 1100));

export const ROBOT_NAMES = [
  ...ROBOT_MODELS.map((r) => r.name),
  'UR10e cobot',
  'ur5',
  'FANUC CRX-10iA/L cobot',
  'Franka Panda',
  'KUKA KR6 R900 sixx',
  'ABB GoFa',
  'Yaskawa Motoman GP8',
  'custom 6-axis arm',
  'mobile AMR',
  'DJI drone',
];
const CONTROLLERS = ['', 'R-30iB Mini Plus', 'ROS 2 Humble on an industrial PC', 'Siemens S7-1500F PLC', 'KRC5', 'FCI'];
const TASKS = [
  'Palletise {m} cartons from the end of a conveyor onto EUR pallets',
  'Pick and place {m} parts between two fixtures',
  'Machine tending: load {m} blanks into a CNC lathe',
  'Bin picking of {m} castings from totes',
  'Screw driving on {m} housings',
];
const MASSES = ['', '0.5 kg', '2 kg', '4 kg', '8 kg', '12 kg', '16 kg', '22 kg', '28 kg', '45 kg', '12 lb'];
const RATES = [
  '',
  ', 3 picks a minute',
  ', 6 picks per minute',
  ', 8 picks a minute',
  ', 12 picks per minute',
  ', 400 per hour',
  ', cycle time 10 s',
];
const SITES = [
  '',
  'Operators pass by the cell',
  'Fenced cell, no people inside',
  'Shared aisle, no fences wanted, area scanner OK',
  'Food plant, wet area',
];
const DISTROS = ['', 'ROS 2 Humble', 'ROS 2 Jazzy'];

/** An order's inputs, from the pieces above. */
export const robotOrder = fc
  .record({
    robot: fc.constantFrom(...ROBOT_NAMES),
    controller: fc.constantFrom(...CONTROLLERS),
    task: fc.constantFrom(...TASKS),
    mass: fc.constantFrom(...MASSES),
    rate: fc.constantFrom(...RATES),
    site: fc.constantFrom(...SITES),
    distro: fc.constantFrom(...DISTROS),
  })
  .map((o) => ({
    robot_type: o.robot,
    controller: [o.controller, o.distro].filter(Boolean).join(', ') || 'the robot controller',
    objective: o.task.replace('{m}', o.mass || 'light') + o.rate,
    ...(o.site ? { site_constraints: o.site } : {}),
  }));

function cycleSeconds(mmS: number, palletising: boolean): number {
  const path = 2 * (palletising ? 1.0 : 0.5) + 0.4;
  return path / ((mmS / 1000) * 0.5) + 1.0;
}

function massKg(text: string): number | null {
  const m = /(\d+(?:\.\d+)?)\s*(kg|lb)\b/i.exec(text);
  if (!m) return null;
  return Number(m[1]) * (m[2]?.toLowerCase() === 'lb' ? 0.45359237 : 1);
}

function picksPerMinute(text: string): number | null {
  const m = /(\d+) picks? (?:a|per) minute|(\d+) per hour|cycle time (\d+) s/.exec(text);
  if (!m) return null;
  return m[1] ? Number(m[1]) : m[2] ? Number(m[2]) / 60 : 60 / Number(m[3]);
}

interface Param {
  ros__parameters: Record<string, unknown>;
}

/** The model the pack is configured for, its parsed files and the order's needs. */
function read(files: Files, inputs: Record<string, InputValue>) {
  const params = yamlLoad(files['robot-control-system-params.yaml'] ?? '') as Record<string, Param>;
  const sup = params.mission_supervisor?.ros__parameters ?? {};
  const robot = ROBOT_MODELS.find((r) => r.id === sup.robot_model) as RobotModel;
  const launch = yamlLoad(files['robot-control-system-launch.yaml'] ?? '') as { launch: Record<string, any>[] };
  const text = `${String(inputs.objective)} ${String(inputs.site_constraints ?? '')}`;
  const mass = massKg(text);
  return {
    params,
    sup,
    wd: params.safety_watchdog?.ros__parameters ?? {},
    robot,
    launch: launch.launch,
    arch: files['robot-control-system-architecture.md'] ?? '',
    checklist: files['robot-control-system-safety-checklist.md'] ?? '',
    load: mass === null ? null : mass + 1,
    palletising: /palleti[sz]/i.test(text),
    rate: picksPerMinute(text),
  };
}

/** The `## Not honoured as asked` section, or ''. */
function notHonoured(arch: string): string {
  const m = /## Not honoured as asked\n([\s\S]*?)\n## /.exec(arch);
  return m?.[1] ?? '';
}

/** Models the text names (longest names first so "UR10e" is not read as "UR10"). */
function modelsNamed(text: string): RobotModel[] {
  const esc = (v: string): string => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return ROBOT_MODELS.filter((r) => new RegExp(`${esc(r.name)}(?![\\w/])`).test(text));
}

/**
 * Checks one robot-control-system pack against the rubric; returns the broken rules (empty when it passes).
 * Exported for the robotics-bundle rubric, whose robot part is the same pack.
 */
export function robotRubric(files: Files, inputs: Record<string, InputValue>, suggested: boolean): string[] {
  const broken: string[] = [];
  const r = read(files, inputs);
  const fail = (rule: string, detail: string): void => {
    broken.push(`${rule}: ${detail}`);
  };
  if (!r.robot) return [`R2 model: robot_model ${String(r.sup.robot_model)} is not in the data-sheet table`];
  const unmet = notHonoured(r.arch);

  // R1 no placeholders in any file.
  for (const hit of placeholderHits(files)) fail('R1 placeholder', hit);

  // R2 the named robot is the configured one when the table holds it; an unknown one is said to be replaced.
  const named = ROBOT_MODELS.find((m) => m.aliases.test(String(inputs.robot_type)));
  if (named && named.id !== r.robot.id) fail('R2 model', `named ${named.id}, configured ${r.robot.id}`);
  if (!named && !unmet.includes('is not in our data-sheet table'))
    fail('R2 model', `"${String(inputs.robot_type)}" is not tabulated and the pack does not say so`);
  if (JSON.stringify(r.sup.joints) !== JSON.stringify(r.robot.joints)) fail('R2 joints', String(r.sup.joints));

  const manipulator = r.robot.kind === 'manipulator';
  if (manipulator) {
    // R3 payload (part + 1 kg gripper) against the data sheet; a shortfall is stated with an arm that carries it.
    if (r.load !== null && r.load > r.robot.payload_kg) {
      if (!/payload/.test(unmet)) fail('R3 payload', `${r.load} kg on a ${r.robot.payload_kg} kg arm, not stated`);
      const alt = modelsNamed(unmet).filter((m) => m.id !== r.robot.id);
      if (alt.length > 0 && !alt.some((m) => m.payload_kg >= r.load!)) fail('R3 payload', `alternative too weak`);
      if (alt.length === 0 && !/No arm in the table/.test(unmet)) fail('R3 payload', 'no alternative named');
    }
    // R4 reach: palletising needs the far corner of a EUR pallet.
    if (r.palletising && (r.robot.reach_mm ?? 0) < PALLET_REACH_MM) {
      if (!/reach/.test(unmet)) fail('R4 reach', `${r.robot.reach_mm} mm arm palletising, not stated`);
      const alt = modelsNamed(unmet).filter((m) => m.id !== r.robot.id);
      if (alt.length > 0 && !alt.some((m) => (m.reach_mm ?? 0) >= PALLET_REACH_MM))
        fail('R4 reach', 'alternative short');
    }
    // R5 a robot we suggest meets payload (10 % margin), reach and rate at full speed: nothing to disclaim.
    if (suggested) {
      if (r.load !== null && r.load * 1.1 > r.robot.payload_kg && r.robot.id !== 'ur30')
        fail('R5 suggestion', `${r.robot.id} for ${r.load} kg`);
      if (r.palletising && (r.robot.reach_mm ?? 0) < PALLET_REACH_MM)
        fail('R5 suggestion', `${r.robot.id} cannot reach the pallet`);
    }
    // R6 reduced speed is 250 mm/s (ISO 10218-1:2011 5.6) wherever it is named.
    if (r.wd.reduced_speed_mps !== 0.25)
      fail('R6 reduced speed', `reduced_speed_mps ${String(r.wd.reduced_speed_mps)}`);
    for (const [name, body] of Object.entries(files)) {
      for (const m of body.matchAll(/reduced speed[^.\n]{0,80}?(\d+(?:\.\d+)?)\s*(mm\/s|m\/s)/gi)) {
        const mmS = Number(m[1]) * (m[2] === 'm/s' ? 1000 : 1);
        if (mmS > REDUCED_MM_S) fail('R6 reduced speed', `${name}: "${m[0]}"`);
      }
    }
    const mode = String(r.wd.sharing_mode);
    if (mode === 'collaborative' && Number(r.wd.automatic_speed_limit_mps) > 0.25)
      fail('R6 collaborative speed', String(r.wd.automatic_speed_limit_mps));
    // R7 the asked rate against the cycle at the mode's speed limit; an unreachable rate is stated.
    if (r.rate !== null) {
      const limit = mode === 'collaborative' ? REDUCED_MM_S : r.robot.tcp_speed_mm_s;
      if (limit !== undefined) {
        const max = 60 / cycleSeconds(limit, r.palletising);
        if (max + 0.01 < r.rate && !/cannot be reached|rate:/.test(unmet))
          fail('R7 cycle', `${r.rate}/min asked, ${max.toFixed(2)}/min at ${limit} mm/s (${mode}), not stated`);
      }
      if (!/## Cycle time/.test(r.arch)) fail('R7 cycle', 'no cycle-time section');
    }
    // R8 the vendor's driver and (where published) MoveIt are launched from their packages.
    const includes = r.launch.filter((e) => e.include).map((e) => String(e.include.file));
    const ros2 = r.robot.ros2;
    if (!ros2) fail('R8 launch', `${r.robot.id} has no ROS 2 launch in the table`);
    else {
      const has = (l: { pkg: string; file: string }): boolean =>
        includes.includes(`$(find-pkg-share ${l.pkg})/launch/${l.file}`);
      if (!has(ros2.driver) && !(ros2.moveit?.starts_driver && has(ros2.moveit)))
        fail('R8 driver', includes.join(', '));
      if (ros2.moveit && !has(ros2.moveit)) fail('R8 MoveIt', includes.join(', '));
      if (!ros2.moveit && !/Alternative with a published MoveIt configuration: [^.]+\./.test(r.arch))
        fail('R8 MoveIt', 'no MoveIt and no alternative named');
    }
    if (r.robot.family === 'ur') {
      const drv = r.launch.find(
        (e) => e.include?.file === '$(find-pkg-share ur_robot_driver)/launch/ur_control.launch.py',
      );
      const mvt = r.launch.find(
        (e) => e.include?.file === '$(find-pkg-share ur_moveit_config)/launch/ur_moveit.launch.py',
      );
      for (const inc of [drv, mvt]) {
        const urType = (inc?.include.arg as { name: string; value: string }[] | undefined)?.find(
          (a) => a.name === 'ur_type',
        );
        if (urType?.value !== r.robot.id) fail('R8 ur_type', JSON.stringify(inc?.include.arg));
      }
    }
  }
  // R9 every launched process is delivered or comes from a named package; every $(var) is declared.
  const allowed = new Set(
    [r.robot.ros2?.driver.pkg, r.robot.ros2?.moveit?.pkg, 'turtlebot4_navigation'].filter(Boolean) as string[],
  );
  const declared = new Set(r.launch.filter((e) => e.arg).map((e) => String(e.arg.name)));
  for (const e of r.launch) {
    if (e.node) fail('R9 node', `node ${String(e.node.pkg)}/${String(e.node.exec)} is not from the vendor's stack`);
    if (e.include) {
      const pkg = /\$\(find-pkg-share ([a-z0-9_]+)\)/.exec(String(e.include.file))?.[1] ?? '';
      if (!allowed.has(pkg)) fail('R9 include', String(e.include.file));
    }
    if (e.executable) {
      const script = /\$\(dirname\)\/([a-z0-9._-]+\.py)/.exec(String(e.executable.cmd))?.[1];
      if (!script || files[script] === undefined) fail('R9 executable', String(e.executable.cmd));
    }
  }
  for (const m of (files['robot-control-system-launch.yaml'] ?? '').matchAll(/\$\(var ([a-z_]+)\)/g))
    if (!declared.has(m[1] ?? '')) fail('R9 arg', `$(var ${m[1]}) not declared`);
  return broken;
}

/** Each delivered Python node parses (python3's own parser). */
export function pythonParses(files: Files): string[] {
  return Object.entries(files)
    .filter(([n]) => n.endsWith('.py'))
    .flatMap(([n, body]) => {
      try {
        execFileSync('python3', ['-c', 'import ast,sys; ast.parse(sys.stdin.read())'], { input: body });
        return [];
      } catch (err) {
        return [`R10 python: ${n}: ${String(err)}`];
      }
    });
}
