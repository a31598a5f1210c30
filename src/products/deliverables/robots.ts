/**
 * Real robot models the robot deliverables name: joint names as their ROS 2 drivers publish them, rated payload
 * and reach from the makers' data sheets, the native controller and its ROS 2 driver. Also reads the ROS 2
 * distribution and the heaviest handled mass from the buyer's text, and picks a concrete robot for an objective when
 * the buyer names none.
 *
 * Source: issue 13 ("joint names from the robot model, ROS 2 distro as given, payload check vs the robot's rated
 * payload", "a concrete controller"); makers' data sheets; Universal_Robots_ROS2_Driver, franka_ros2, kuka drivers.
 */
import { hasAny, haystack } from './util';

/** One robot model. Masses in kilograms, reach in millimetres. */
export interface RobotModel {
  id: string;
  name: string;
  aliases: RegExp;
  kind: 'manipulator' | 'mobile';
  payload_kg: number;
  reach_mm?: number;
  /** Joint names as the ROS 2 driver publishes them (prefix-free). */
  joints: string[];
  /** The controller the robot ships with. */
  controller: string;
  /** Its ROS 2 driver package and how it is started. */
  driver: string;
  /** Family, for suggesting a bigger sibling. */
  family: string;
  /** Mobile bases: wheel geometry for diff_drive_controller, metres. */
  wheels?: { left: string; right: string; separation: number; radius: number };
}

const UR_JOINTS = [
  'shoulder_pan_joint',
  'shoulder_lift_joint',
  'elbow_joint',
  'wrist_1_joint',
  'wrist_2_joint',
  'wrist_3_joint',
];
const ur = (id: string, name: string, payload: number, reach: number, alias: RegExp): RobotModel => ({
  id,
  name,
  aliases: alias,
  kind: 'manipulator',
  payload_kg: payload,
  reach_mm: reach,
  joints: UR_JOINTS,
  family: 'ur',
  controller: 'UR e-Series control box (PolyScope 5) with the External Control URCap',
  driver: `ur_robot_driver (Universal_Robots_ROS2_Driver): ros2 launch ur_robot_driver ur_control.launch.py ur_type:=${id} robot_ip:=<robot ip>`,
});

/** The table. */
export const ROBOT_MODELS: readonly RobotModel[] = Object.freeze([
  ur('ur3e', 'Universal Robots UR3e', 3, 500, /\bur\s?3e?\b/i),
  ur('ur5e', 'Universal Robots UR5e', 5, 850, /\bur\s?5e?\b/i),
  ur('ur10e', 'Universal Robots UR10e', 12.5, 1300, /\bur\s?10e?\b/i),
  ur('ur16e', 'Universal Robots UR16e', 16, 900, /\bur\s?16e?\b/i),
  ur('ur20', 'Universal Robots UR20', 20, 1750, /\bur\s?20\b/i),
  ur('ur30', 'Universal Robots UR30', 30, 1300, /\bur\s?30\b/i),
  {
    id: 'fr3',
    name: 'Franka Research 3',
    aliases: /\b(franka|fr3|panda)\b/i,
    kind: 'manipulator',
    payload_kg: 3,
    reach_mm: 855,
    family: 'franka',
    joints: ['fr3_joint1', 'fr3_joint2', 'fr3_joint3', 'fr3_joint4', 'fr3_joint5', 'fr3_joint6', 'fr3_joint7'],
    controller: 'Franka Control with the Franka Control Interface (FCI, 1 kHz)',
    driver: 'franka_ros2 (franka_bringup franka.launch.py robot_ip:=<robot ip>)',
  },
  {
    id: 'lbr_iiwa7',
    name: 'KUKA LBR iiwa 7 R800',
    aliases: /\b(iiwa\s?7|lbr\s?iiwa)\b/i,
    kind: 'manipulator',
    payload_kg: 7,
    reach_mm: 800,
    family: 'kuka_lbr',
    joints: ['lbr_A1', 'lbr_A2', 'lbr_A3', 'lbr_A4', 'lbr_A5', 'lbr_A6', 'lbr_A7'],
    controller: 'KUKA Sunrise Cabinet with the Fast Robot Interface (FRI)',
    driver: 'lbr_fri_ros2_stack (lbr_bringup)',
  },
  {
    id: 'kr6_r900',
    name: 'KUKA KR 6 R900 (KR AGILUS)',
    aliases: /\b(kr\s?6\s?r900|kr agilus|agilus)\b/i,
    kind: 'manipulator',
    payload_kg: 6,
    reach_mm: 901,
    family: 'kuka_kr',
    joints: ['joint_a1', 'joint_a2', 'joint_a3', 'joint_a4', 'joint_a5', 'joint_a6'],
    controller: 'KUKA KR C5 micro with RobotSensorInterface (RSI)',
    driver: 'kuka_drivers (kuka_rsi_driver)',
  },
  {
    id: 'irb120',
    name: 'ABB IRB 120',
    aliases: /\birb\s?120\b/i,
    kind: 'manipulator',
    payload_kg: 3,
    reach_mm: 580,
    family: 'abb',
    joints: ['joint_1', 'joint_2', 'joint_3', 'joint_4', 'joint_5', 'joint_6'],
    controller: 'ABB IRC5 Compact with Externally Guided Motion (EGM)',
    driver: 'abb_ros2 (abb_bringup, EGM + RWS)',
  },
  {
    id: 'gofa_crb15000',
    name: 'ABB GoFa CRB 15000',
    aliases: /\b(gofa|crb\s?15000)\b/i,
    kind: 'manipulator',
    payload_kg: 5,
    reach_mm: 950,
    family: 'abb',
    joints: ['joint_1', 'joint_2', 'joint_3', 'joint_4', 'joint_5', 'joint_6'],
    controller: 'ABB OmniCore C30 with Externally Guided Motion (EGM)',
    driver: 'abb_ros2 (abb_bringup, EGM + RWS)',
  },
  // The long-arm and heavier CRX variants first: "CRX-10iA/L" is not the CRX-10iA (1418 mm, not 1249 mm reach).
  {
    id: 'crx10ia_l',
    name: 'FANUC CRX-10iA/L',
    aliases: /\bcrx[-\s]?10i?a?\s?\/\s?l\b/i,
    kind: 'manipulator',
    payload_kg: 10,
    reach_mm: 1418,
    family: 'fanuc',
    joints: ['J1', 'J2', 'J3', 'J4', 'J5', 'J6'],
    controller: 'FANUC R-30iB Mini Plus with Stream Motion',
    driver: 'fanuc_driver (FANUC ROS 2 driver, Stream Motion)',
  },
  {
    id: 'crx20ia_l',
    name: 'FANUC CRX-20iA/L',
    aliases: /\bcrx[-\s]?20i?a?(?:\s?\/\s?l)?\b/i,
    kind: 'manipulator',
    payload_kg: 20,
    reach_mm: 1418,
    family: 'fanuc',
    joints: ['J1', 'J2', 'J3', 'J4', 'J5', 'J6'],
    controller: 'FANUC R-30iB Mini Plus with Stream Motion',
    driver: 'fanuc_driver (FANUC ROS 2 driver, Stream Motion)',
  },
  {
    id: 'crx25ia',
    name: 'FANUC CRX-25iA',
    aliases: /\bcrx[-\s]?25i?a?\b/i,
    kind: 'manipulator',
    payload_kg: 25,
    reach_mm: 1889,
    family: 'fanuc',
    joints: ['J1', 'J2', 'J3', 'J4', 'J5', 'J6'],
    controller: 'FANUC R-30iB Mini Plus with Stream Motion',
    driver: 'fanuc_driver (FANUC ROS 2 driver, Stream Motion)',
  },
  {
    id: 'crx10ia',
    name: 'FANUC CRX-10iA',
    aliases: /\bcrx[-\s]?10i?a?\b/i,
    kind: 'manipulator',
    payload_kg: 10,
    reach_mm: 1249,
    family: 'fanuc',
    joints: ['J1', 'J2', 'J3', 'J4', 'J5', 'J6'],
    controller: 'FANUC R-30iB Mini Plus with Stream Motion',
    driver: 'fanuc_driver (FANUC ROS 2 driver, Stream Motion)',
  },
  {
    id: 'lrmate200id_7l',
    name: 'FANUC LR Mate 200iD/7L',
    aliases: /\blr\s?mate\s?200i?d?(?:\/7l)?\b/i,
    kind: 'manipulator',
    payload_kg: 7,
    reach_mm: 911,
    family: 'fanuc',
    joints: ['J1', 'J2', 'J3', 'J4', 'J5', 'J6'],
    controller: 'FANUC R-30iB Mate Plus with Stream Motion',
    driver: 'fanuc_driver (FANUC ROS 2 driver, Stream Motion)',
  },
  {
    id: 'xarm6',
    name: 'UFACTORY xArm 6',
    aliases: /\bx\s?arm\s?6\b/i,
    kind: 'manipulator',
    payload_kg: 5,
    reach_mm: 700,
    family: 'xarm',
    joints: ['joint1', 'joint2', 'joint3', 'joint4', 'joint5', 'joint6'],
    controller: 'xArm control box (xArm SDK over TCP)',
    driver: 'xarm_ros2 (xarm_api, ros2 launch xarm_moveit_config xarm6_moveit_realmove.launch.py robot_ip:=<robot ip>)',
  },
  {
    id: 'kinova_gen3',
    name: 'Kinova Gen3 (7 DoF)',
    aliases: /\bkinova\b|\bgen3\b/i,
    kind: 'manipulator',
    payload_kg: 4,
    reach_mm: 902,
    family: 'kinova',
    joints: ['joint_1', 'joint_2', 'joint_3', 'joint_4', 'joint_5', 'joint_6', 'joint_7'],
    controller: 'Kinova Gen3 base controller (Kortex API)',
    driver: 'ros2_kortex (kortex_bringup gen3.launch.py robot_ip:=<robot ip>)',
  },
  {
    id: 'turtlebot4',
    name: 'TurtleBot 4',
    aliases: /\bturtle\s?bot\s?4?\b/i,
    kind: 'mobile',
    payload_kg: 9,
    family: 'turtlebot',
    joints: ['left_wheel_joint', 'right_wheel_joint'],
    wheels: { left: 'left_wheel_joint', right: 'right_wheel_joint', separation: 0.233, radius: 0.03575 },
    controller: 'iRobot Create 3 base with a Raspberry Pi 4',
    driver: 'turtlebot4_robot (turtlebot4_bringup)',
  },
  {
    id: 'mir250',
    name: 'MiR250',
    aliases: /\bmir\s?250\b/i,
    kind: 'mobile',
    payload_kg: 250,
    family: 'mir',
    joints: ['left_wheel_joint', 'right_wheel_joint'],
    wheels: { left: 'left_wheel_joint', right: 'right_wheel_joint', separation: 0.445, radius: 0.0625 },
    controller: 'MiR robot computer (REST API, fleet manager)',
    driver: 'MiR REST API bridge (mir_restapi) or mir_robot (community)',
  },
] satisfies RobotModel[]);

/** The robot model a text names, if any ("UR5e collaborative arm" → UR5e). */
export function findRobot(text: string): RobotModel | undefined {
  return ROBOT_MODELS.find((r) => r.aliases.test(text));
}

const DISTROS: [RegExp, string, string][] = [
  [/\bhumble\b/i, 'humble', 'Humble Hawksbill (LTS, Ubuntu 22.04)'],
  [/\bjazzy\b/i, 'jazzy', 'Jazzy Jalisco (LTS, Ubuntu 24.04)'],
  [/\biron\b/i, 'iron', 'Iron Irwini (end of life)'],
  [/\bkilted\b/i, 'kilted', 'Kilted Kaiju (Ubuntu 24.04)'],
  [/\brolling\b/i, 'rolling', 'Rolling Ridley (development)'],
  [/\bfoxy\b/i, 'foxy', 'Foxy Fitzroy (end of life)'],
];

/** The ROS 2 distribution the text names (`humble`, `jazzy`, …), or null. */
export function parseRosDistro(text: string): { id: string; label: string } | null {
  const hit = DISTROS.find(([re]) => re.test(text));
  return hit ? { id: hit[1], label: hit[2] } : null;
}

/**
 * The heaviest mass the text says is handled, in kilograms ("parts up to 8 kg", "12 lb boxes", "1.5kg"); grams
 * and pounds converted. Null when no mass is given.
 */
export function parseMaxMassKg(text: string): number | null {
  let max: number | null = null;
  for (const m of text.matchAll(/(\d+(?:[.,]\d+)?)\s*(kg|kilograms?|kilos?|g|grams?|lbs?|pounds?)\b/gi)) {
    const n = Number((m[1] ?? '0').replace(',', '.'));
    const unit = (m[2] ?? 'kg').toLowerCase();
    const kg = unit.startsWith('k') ? n : unit.startsWith('l') || unit.startsWith('p') ? n * 0.45359237 : n / 1000;
    max = max === null ? kg : Math.max(max, kg);
  }
  return max === null ? null : Math.round(max * 1000) / 1000;
}

/** Whether an objective needs a camera to find what it handles, and which kind. */
export function visionNeed(text: string): { kind: '3d' | '2d'; why: string } | null {
  const hay = haystack(text);
  const picking = hasAny(hay, ['pick', 'grasp', 'grab']);
  if (
    hasAny(hay, ['bin pick', 'bin-pick', 'binpick', 'depalletiz', 'depalletis', 'mixed sku']) ||
    (picking && hasAny(hay, ['from a bin', 'from bins', 'from the bin', 'random', 'jumbled', 'bulk', 'tote']))
  )
    return {
      kind: '3d',
      why: 'parts lie in unknown poses (bin picking / depalletising): a 3D camera finds each pick pose',
    };
  // Palletising cartons that arrive at the end of a conveyor: they stop at a known place (a photo-eye at the end
  // stop); no camera unless something must be identified or inspected.
  const fixedInfeed =
    hasAny(hay, ['palletiz', 'palletis', 'stack']) &&
    !hasAny(hay, ['depalletiz', 'depalletis']) &&
    hasAny(hay, ['conveyor']);
  if (
    fixedInfeed &&
    !hasAny(hay, [
      'inspect',
      'defect',
      'sort by',
      'sorting',
      'identify',
      'detect',
      'recogni',
      'barcode',
      'label',
      'vision',
      'camera',
      'mixed',
    ])
  )
    return null;
  if (
    hasAny(hay, [
      'inspect',
      'inspection',
      'defect',
      'sort by',
      'sorting',
      'identify',
      'detect',
      'recogni',
      'barcode',
      'label',
      'conveyor',
      'vision',
      'camera',
    ])
  )
    return {
      kind: '2d',
      why: 'parts must be located or identified on the fly: a 2D camera with calibrated work plane',
    };
  return null;
}

/** Gripper allowance added to the part mass when checking payload, kg. */
export const GRIPPER_ALLOWANCE_KG = 1;

/** Payload check: the part (plus a gripper allowance) against the robot's rated payload. */
export function payloadCheck(
  robot: RobotModel | undefined,
  partKg: number | null,
): {
  status: 'ok' | 'over' | 'tight' | 'unknown';
  load_kg: number | null;
  rated_kg: number | null;
  note: string;
  suggest?: string;
} {
  if (!robot || partKg === null) {
    return {
      status: 'unknown',
      load_kg: partKg,
      rated_kg: robot?.payload_kg ?? null,
      note:
        partKg === null
          ? 'No part mass was given: confirm the heaviest part and gripper mass at the design review.'
          : 'The robot model is not in the table: check the rated payload on its data sheet.',
    };
  }
  const load = Math.round((partKg + GRIPPER_ALLOWANCE_KG) * 100) / 100;
  const bigger = ROBOT_MODELS.filter((r) => r.family === robot.family && r.payload_kg >= load * 1.1).sort(
    (a, b) => a.payload_kg - b.payload_kg,
  )[0];
  if (load > robot.payload_kg) {
    return {
      status: 'over',
      load_kg: load,
      rated_kg: robot.payload_kg,
      note: `${partKg} kg part + ${GRIPPER_ALLOWANCE_KG} kg gripper allowance = ${load} kg exceeds the ${robot.name}'s rated ${robot.payload_kg} kg payload.`,
      ...(bigger ? { suggest: bigger.name } : {}),
    };
  }
  if (load > robot.payload_kg * 0.9) {
    return {
      status: 'tight',
      load_kg: load,
      rated_kg: robot.payload_kg,
      note: `${load} kg (part + gripper allowance) is within 10 % of the rated ${robot.payload_kg} kg: check the payload curve at the needed reach and centre of gravity.`,
    };
  }
  return {
    status: 'ok',
    load_kg: load,
    rated_kg: robot.payload_kg,
    note: `${load} kg (part + ${GRIPPER_ALLOWANCE_KG} kg gripper allowance) is within the ${robot.name}'s rated ${robot.payload_kg} kg.`,
  };
}

/** A concrete robot for an objective that names none: the smallest fitting UR arm, or a MiR250 for transport. */
export function suggestRobot(objective: string): RobotModel {
  const hay = haystack(objective);
  if (
    hasAny(hay, [
      'transport',
      'deliver',
      'carry',
      'move carts',
      'move totes',
      'move pallets',
      'move bins',
      'haul',
      'tow',
      'intralogistic',
      'amr',
      'agv',
      'between stations',
      'between the',
    ])
  )
    return ROBOT_MODELS.find((r) => r.id === 'mir250') as RobotModel;
  const mass = parseMaxMassKg(objective);
  const need = mass === null ? 0 : (mass + GRIPPER_ALLOWANCE_KG) * 1.1;
  return (
    ROBOT_MODELS.filter((r) => r.family === 'ur' && r.payload_kg >= need).sort(
      (a, b) => a.payload_kg - b.payload_kg,
    )[0] ?? (ROBOT_MODELS.find((r) => r.id === 'ur30') as RobotModel)
  );
}
