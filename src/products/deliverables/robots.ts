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
  /** Maximum TCP speed from the data sheet, mm/s (manipulators whose data sheet states one). */
  tcp_speed_mm_s?: number;
  /** The vendor's ROS 2 launch files: the driver and, where one is published for this model, MoveIt. */
  ros2?: { driver: Ros2Launch; moveit: Ros2Launch | null; moveit_note?: string };
  /** Where the figures come from. */
  source: string;
}

/** One launch file of a named ROS 2 package, with the arguments it takes. */
export interface Ros2Launch {
  pkg: string;
  file: string;
  /** Launch arguments; `$(var robot_ip)` reads the pack's own launch argument. */
  args: Record<string, string>;
  /** True when this file also starts the driver (a MoveIt launch that brings the robot up itself). */
  starts_driver?: boolean;
}

/** ISO 10218-1:2011 5.6: reduced speed, the TCP speed limit under manual (teach) and collaborative operation, mm/s. */
export const REDUCED_SPEED_MM_S = 250;

const UR_JOINTS = [
  'shoulder_pan_joint',
  'shoulder_lift_joint',
  'elbow_joint',
  'wrist_1_joint',
  'wrist_2_joint',
  'wrist_3_joint',
];
const ur = (id: string, name: string, payload: number, reach: number, tcp: number, alias: RegExp): RobotModel => ({
  id,
  name,
  aliases: alias,
  kind: 'manipulator',
  payload_kg: payload,
  reach_mm: reach,
  joints: UR_JOINTS,
  family: 'ur',
  controller: 'UR e-Series control box (PolyScope 5) with the External Control URCap',
  driver: `ur_robot_driver (Universal_Robots_ROS2_Driver): ros2 launch ur_robot_driver ur_control.launch.py ur_type:=${id} robot_ip:=$ROBOT_IP`,
  tcp_speed_mm_s: tcp,
  ros2: {
    driver: {
      pkg: 'ur_robot_driver',
      file: 'ur_control.launch.py',
      args: { ur_type: id, robot_ip: '$(var robot_ip)', launch_rviz: 'false' },
    },
    moveit: { pkg: 'ur_moveit_config', file: 'ur_moveit.launch.py', args: { ur_type: id, launch_rviz: 'false' } },
  },
  source: `Universal Robots ${name.replace('Universal Robots ', '')} data sheet (universal-robots.com); Universal_Robots_ROS2_Driver README`,
});

/** The table. */
export const ROBOT_MODELS: readonly RobotModel[] = Object.freeze([
  ur('ur3e', 'Universal Robots UR3e', 3, 500, 1000, /\bur\s?3e?\b/i),
  ur('ur5e', 'Universal Robots UR5e', 5, 850, 1000, /\bur\s?5e?\b/i),
  ur('ur10e', 'Universal Robots UR10e', 12.5, 1300, 1000, /\bur\s?10e?\b/i),
  ur('ur16e', 'Universal Robots UR16e', 16, 900, 1000, /\bur\s?16e?\b/i),
  ur('ur20', 'Universal Robots UR20', 20, 1750, 2000, /\bur\s?20\b/i),
  ur('ur30', 'Universal Robots UR30', 30, 1300, 2000, /\bur\s?30\b/i),
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
    driver: 'franka_ros2 (franka_bringup franka.launch.py robot_ip:=$ROBOT_IP)',
    tcp_speed_mm_s: 2000,
    ros2: {
      driver: { pkg: 'franka_bringup', file: 'franka.launch.py', args: { robot_ip: '$(var robot_ip)' } },
      moveit: {
        pkg: 'franka_fr3_moveit_config',
        file: 'moveit.launch.py',
        args: { robot_ip: '$(var robot_ip)' },
        starts_driver: true,
      },
    },
    source: 'Franka Research 3 data sheet (franka.de); franka_ros2 documentation',
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
    ros2: {
      driver: {
        pkg: 'lbr_bringup',
        file: 'bringup.launch.py',
        args: { model: 'iiwa7', sim: 'false', moveit: 'true', rviz: 'false' },
        starts_driver: true,
      },
      moveit: {
        pkg: 'lbr_bringup',
        file: 'bringup.launch.py',
        args: { model: 'iiwa7', sim: 'false', moveit: 'true', rviz: 'false' },
        starts_driver: true,
      },
    },
    source: 'KUKA LBR iiwa 7 R800 data sheet (kuka.com); lbr_fri_ros2_stack README',
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
    ros2: {
      driver: { pkg: 'kuka_rsi_driver', file: 'startup.launch.py', args: { robot_model: 'kr6_r900_sixx' } },
      moveit: null,
      moveit_note:
        'kuka_drivers publishes no MoveIt configuration for the KR 6 R900; the KR C5 runs the motion program (KRL) and ROS 2 streams corrections through RSI',
    },
    source: 'KUKA KR 6 R900 sixx data sheet (kuka.com); kuka_drivers documentation (kuka_rsi_driver, experimental)',
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
    tcp_speed_mm_s: 6200,
    ros2: {
      driver: {
        pkg: 'abb_bringup',
        file: 'abb_control.launch.py',
        args: { rws_ip: '$(var robot_ip)', use_fake_hardware: 'false' },
      },
      moveit: null,
      moveit_note:
        'abb_ros2 ships a robot description and MoveIt configuration for the IRB 1200 only; for the IRB 120 the RAPID program on the IRC5 plans the motion and ROS 2 streams through EGM',
    },
    source: 'ABB IRB 120 product specification (abb.com); abb_ros2 README',
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
    tcp_speed_mm_s: 2200,
    ros2: {
      driver: {
        pkg: 'abb_bringup',
        file: 'abb_control.launch.py',
        args: { rws_ip: '$(var robot_ip)', use_fake_hardware: 'false' },
      },
      moveit: null,
      moveit_note:
        'abb_ros2 ships a robot description and MoveIt configuration for the IRB 1200 only; for the GoFa the RAPID program on the OmniCore plans the motion and ROS 2 streams through EGM',
    },
    source: 'ABB GoFa CRB 15000 product specification (abb.com); abb_ros2 README',
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
    driver: 'ros2_fanuc_interface (ros2_control hardware interface for the CRX family, EtherNet/IP and DPM)',
    tcp_speed_mm_s: 1000,
    ros2: {
      driver: { pkg: 'ros2_fanuc_interface', file: 'robot_bringup.launch.py', args: {} },
      moveit: null,
      moveit_note:
        "ros2_fanuc_interface's robot_bringup.launch.py loads the CRX-20iA/L description and its MoveIt configuration only; for this model its description from crx_description is swapped in during days 2-3, and until then the TP program on the controller plans the motion",
    },
    source: 'FANUC CRX series data sheet (fanuc.eu); ros2_fanuc_interface (SUPSI, CRX family)',
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
    driver: 'ros2_fanuc_interface (ros2_control hardware interface for the CRX family, EtherNet/IP and DPM)',
    tcp_speed_mm_s: 1000,
    ros2: {
      driver: { pkg: 'ros2_fanuc_interface', file: 'robot_bringup.launch.py', args: {} },
      moveit: {
        pkg: 'ros2_fanuc_interface',
        file: 'robot_bringup.launch.py',
        args: {},
        starts_driver: true,
      },
      moveit_note:
        "robot_bringup.launch.py starts the hardware interface and crx20_moveit_config's move_group; the controller's IP address is set in crx_description's ros2_control xacro",
    },
    source: 'FANUC CRX series data sheet (fanuc.eu); ros2_fanuc_interface (SUPSI, CRX family)',
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
    driver: 'ros2_fanuc_interface (ros2_control hardware interface for the CRX family, EtherNet/IP and DPM)',
    tcp_speed_mm_s: 1000,
    ros2: {
      driver: { pkg: 'ros2_fanuc_interface', file: 'robot_bringup.launch.py', args: {} },
      moveit: null,
      moveit_note:
        "ros2_fanuc_interface's robot_bringup.launch.py loads the CRX-20iA/L description and its MoveIt configuration only; for this model its description from crx_description is swapped in during days 2-3, and until then the TP program on the controller plans the motion",
    },
    source: 'FANUC CRX series data sheet (fanuc.eu); ros2_fanuc_interface (SUPSI, CRX family)',
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
    driver: 'ros2_fanuc_interface (ros2_control hardware interface for the CRX family, EtherNet/IP and DPM)',
    tcp_speed_mm_s: 1000,
    ros2: {
      driver: { pkg: 'ros2_fanuc_interface', file: 'robot_bringup.launch.py', args: {} },
      moveit: null,
      moveit_note:
        "ros2_fanuc_interface's robot_bringup.launch.py loads the CRX-20iA/L description and its MoveIt configuration only; for this model its description from crx_description is swapped in during days 2-3, and until then the TP program on the controller plans the motion",
    },
    source: 'FANUC CRX series data sheet (fanuc.eu); ros2_fanuc_interface (SUPSI, CRX family)',
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
    driver: 'ros2_fanuc_interface (ros2_control hardware interface for the CRX family, EtherNet/IP and DPM)',
    ros2: {
      driver: { pkg: 'ros2_fanuc_interface', file: 'robot_bringup.launch.py', args: {} },
      moveit: null,
      moveit_note:
        'ros2_fanuc_interface is written for the CRX family and no MoveIt configuration is published for the LR Mate 200iD; its description (fanuc_lrmate200id_support) is swapped in during days 2-3, the controller needs the DPM option, and until then the TP program on the controller plans the motion',
    },
    source: 'FANUC LR Mate 200iD/7L data sheet (fanuc.eu)',
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
    driver: 'xarm_ros2 (xarm_api, ros2 launch xarm_moveit_config xarm6_moveit_realmove.launch.py robot_ip:=$ROBOT_IP)',
    tcp_speed_mm_s: 1000,
    ros2: {
      driver: {
        pkg: 'xarm_moveit_config',
        file: 'xarm6_moveit_realmove.launch.py',
        args: { robot_ip: '$(var robot_ip)' },
        starts_driver: true,
      },
      moveit: {
        pkg: 'xarm_moveit_config',
        file: 'xarm6_moveit_realmove.launch.py',
        args: { robot_ip: '$(var robot_ip)' },
        starts_driver: true,
      },
    },
    source: 'UFACTORY xArm 6 data sheet (ufactory.cc); xarm_ros2 README',
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
    driver: 'ros2_kortex (kortex_bringup gen3.launch.py robot_ip:=$ROBOT_IP)',
    tcp_speed_mm_s: 500,
    ros2: {
      driver: {
        pkg: 'kortex_bringup',
        file: 'gen3.launch.py',
        args: { robot_ip: '$(var robot_ip)', launch_rviz: 'false' },
      },
      moveit: {
        pkg: 'kinova_gen3_7dof_robotiq_2f_85_moveit_config',
        file: 'robot.launch.py',
        args: { robot_ip: '$(var robot_ip)' },
        starts_driver: true,
      },
    },
    source: 'Kinova Gen3 specifications (kinovarobotics.com); ros2_kortex README',
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
    source: 'TurtleBot 4 user manual (turtlebot.github.io); iRobot Create 3 specifications',
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
    source: 'MiR250 user guide and REST API reference (mobile-industrial-robots.com)',
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

/** Whether the objective stacks goods onto pallets (not depalletising). */
export function isPalletising(text: string): boolean {
  const hay = haystack(text);
  return hasAny(hay, ['palletiz', 'palletis', 'pallet']) && !hasAny(hay, ['depalletiz', 'depalletis']);
}

/**
 * Reach a palletising arm needs, mm: from a base 300 mm from the long side of a 1200 x 800 mm EUR pallet
 * (ISO 6780 / EN 13698-1), centred on it, to the far corner: sqrt(600² + 1100²) = 1253 mm. A column or lift covers
 * the stack height; the horizontal reach is what the arm must give.
 */
export const PALLET_REACH_MM = 1253;

/** The reach the objective needs, mm (palletising: {@link PALLET_REACH_MM}); null when the text sets none. */
export function requiredReachMm(text: string): number | null {
  const explicit = /\breach(?:\s+of)?\s+(\d+(?:[.,]\d+)?)\s*(mm|m)\b/i.exec(text);
  if (explicit) {
    const n = Number((explicit[1] ?? '0').replace(',', '.'));
    return Math.round(explicit[2]?.toLowerCase() === 'm' ? n * 1000 : n);
  }
  return isPalletising(text) ? PALLET_REACH_MM : null;
}

/** Picks (cycles) per minute the text asks for: "8 picks a minute", "8 cartons per minute", "480 per hour", "cycle time 6 s". */
export function parsePicksPerMinute(text: string): number | null {
  const rate =
    /(\d+(?:[.,]\d+)?)\s*(?:(?:picks?|cycles?|cartons?|boxes|box|cases?|parts?|pieces?|items?|units?|bags?|sacks?|trays?|bottles?|packs?|products?|places?|placements?|lifts?)\s*)?(?:\/|\bper\b|\ba\b|\ban\b|\bevery\b|\beach\b)\s*(minute|min|hour|hr|h)\b/i.exec(
      text,
    );
  if (rate) {
    const n = Number((rate[1] ?? '0').replace(',', '.'));
    return n > 0 ? Math.round((rate[2]?.toLowerCase().startsWith('m') ? n : n / 60) * 100) / 100 : null;
  }
  const cycle = /cycle\s*time\s*(?:of\s*)?(\d+(?:[.,]\d+)?)\s*(s|sec|seconds?)\b/i.exec(text);
  if (cycle) {
    const s = Number((cycle[1] ?? '0').replace(',', '.'));
    return s > 0 ? Math.round((60 / s) * 100) / 100 : null;
  }
  return null;
}

/** The cycle model's assumptions (printed in the deliverable). Distances in metres, times in seconds. */
export const CYCLE_MODEL = {
  /** One-way transfer: conveyor end to the mean pallet position; other pick-and-place. */
  transfer_m: { palletising: 1.0, other: 0.5 },
  /** Approach and retreat, 100 mm each at pick and at place. */
  approach_m: 0.4,
  /** Gripping and releasing. */
  handling_s: 1.0,
  /** Average speed over a move as a share of the TCP speed limit (acceleration, deceleration, payload). */
  average_share: 0.5,
} as const;

/** Seconds per cycle when the TCP speed is limited to `speedMmS` (average share of it over each move). */
export function cycleSeconds(speedMmS: number, palletising: boolean): number {
  const path =
    2 * (palletising ? CYCLE_MODEL.transfer_m.palletising : CYCLE_MODEL.transfer_m.other) + CYCLE_MODEL.approach_m;
  return Math.round((path / ((speedMmS / 1000) * CYCLE_MODEL.average_share) + CYCLE_MODEL.handling_s) * 100) / 100;
}

/** Picks per minute reachable at a TCP speed limit (two decimals). */
export function picksPerMinuteAt(speedMmS: number, palletising: boolean): number {
  return Math.floor((60 / cycleSeconds(speedMmS, palletising)) * 100) / 100;
}

/** What an arm must give: payload (part + gripper allowance, 10 % margin), reach, TCP speed for the rate. */
export interface ArmNeeds {
  load_kg: number | null;
  reach_mm: number | null;
  picks_per_minute: number | null;
  palletising: boolean;
}

/** The needs read from the objective and site text. */
export function armNeeds(text: string): ArmNeeds {
  const mass = parseMaxMassKg(text);
  return {
    load_kg: mass === null ? null : Math.round((mass + GRIPPER_ALLOWANCE_KG) * 100) / 100,
    reach_mm: requiredReachMm(text),
    picks_per_minute: parsePicksPerMinute(text),
    palletising: isPalletising(text),
  };
}

/** Whether a manipulator meets the needs at full (data-sheet) speed; reasons when not. */
export function armShortfalls(robot: RobotModel, needs: ArmNeeds): string[] {
  const out: string[] = [];
  if (needs.load_kg !== null && needs.load_kg > robot.payload_kg)
    out.push(`payload: ${needs.load_kg} kg needed, ${robot.payload_kg} kg rated`);
  if (needs.reach_mm !== null && (robot.reach_mm ?? 0) < needs.reach_mm)
    out.push(`reach: ${needs.reach_mm} mm needed, ${robot.reach_mm ?? 0} mm on the data sheet`);
  if (needs.picks_per_minute !== null && robot.tcp_speed_mm_s !== undefined) {
    const max = picksPerMinuteAt(robot.tcp_speed_mm_s, needs.palletising);
    if (max < needs.picks_per_minute)
      out.push(
        `rate: ${needs.picks_per_minute} picks/min needed, ${max} picks/min at its ${robot.tcp_speed_mm_s} mm/s`,
      );
  }
  return out;
}

/**
 * The smallest arm (by rated payload, then reach) meeting the needs: the same family first, then any arm with a
 * ROS 2 driver and MoveIt configuration in the table. Undefined when none does.
 */
export function alternativeArm(needs: ArmNeeds, family?: string): RobotModel | undefined {
  const fits = (r: RobotModel): boolean =>
    r.kind === 'manipulator' &&
    armShortfalls(r, { ...needs, load_kg: needs.load_kg === null ? null : needs.load_kg * 1.1 }).length === 0;
  const rank = (a: RobotModel, b: RobotModel): number =>
    a.payload_kg - b.payload_kg || (a.reach_mm ?? 0) - (b.reach_mm ?? 0);
  return (
    ROBOT_MODELS.filter((r) => r.family === family && fits(r)).sort(rank)[0] ??
    ROBOT_MODELS.filter((r) => r.ros2?.moveit && fits(r)).sort(rank)[0]
  );
}

/**
 * A concrete robot for an objective that names none: the smallest UR arm meeting its payload, reach and rate (another
 * family's arm when no UR does), or a MiR250 for transport.
 */
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
  // Payload (with a 10 % margin), reach (palletising: a EUR pallet's far corner) and rate at full speed.
  return alternativeArm(armNeeds(objective), 'ur') ?? (ROBOT_MODELS.find((r) => r.id === 'ur30') as RobotModel);
}
