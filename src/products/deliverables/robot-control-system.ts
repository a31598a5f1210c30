/**
 * robot-control-system deliverables: a control-system blueprint for the given robot type, controller
 * and objective — architecture document, ROS 2 parameter file (ros2_control controllers, safety
 * limits), ROS 2 YAML launch file and a safety checklist.
 *
 * The robot model is looked up in robots.ts (joint names as its ROS 2 driver publishes them, rated payload, native
 * controller and driver); the ROS 2 distribution is the one the buyer names (default Jazzy); the heaviest part named
 * in the objective is checked against the rated payload; objectives that need to find parts (bin picking,
 * inspection, conveyors) get a camera and a perception node.
 *
 * Source: seed §1, §2.1 (robot-control-system inputs: robot_type, controller, objective;
 * site_constraints optional; the service does not support safety certification); issue 13.
 */
import {
  CYCLE_MODEL,
  REDUCED_SPEED_MM_S,
  alternativeArm,
  armNeeds,
  armShortfalls,
  cycleSeconds,
  findRobot,
  parseMaxMassKg,
  parseRosDistro,
  payloadCheck,
  picksPerMinuteAt,
  suggestRobot,
  visionNeed,
  type RobotModel,
  type Ros2Launch,
} from './robots';
import type { DeliverableContext, DeliverableFile } from './types';
import {
  MEDIA_TEXT,
  MEDIA_YAML,
  hasAny,
  haystack,
  line,
  lines,
  markdownFile,
  md,
  mdFooter,
  mdQuote,
  mdTable,
  text,
  textFile,
  yamlString,
} from './util';

type ControllerKind =
  'plc' | 'universal_robots' | 'ros2_native' | 'microcontroller' | 'flight_controller' | 'vendor' | 'generic';

const CONTROLLER_KINDS: { kind: ControllerKind; keywords: string[] }[] = [
  {
    kind: 'plc',
    keywords: [
      'plc',
      'siemens',
      's7',
      's7-1500',
      'allen',
      'rockwell',
      'beckhoff',
      'twincat',
      'codesys',
      'omron',
      'opc',
      'modbus',
    ],
  },
  { kind: 'universal_robots', keywords: ['ur', 'universal robots', 'polyscope', 'cb3', 'e-series'] },
  { kind: 'ros2_native', keywords: ['ros', 'ros2', 'ros 2', 'ros2_control', 'moveit', 'nav2'] },
  {
    kind: 'microcontroller',
    keywords: ['arduino', 'esp32', 'stm32', 'teensy', 'raspberry', 'micro-ros', 'microcontroller', 'mcu'],
  },
  { kind: 'flight_controller', keywords: ['px4', 'ardupilot', 'pixhawk', 'mavlink'] },
  {
    kind: 'vendor',
    keywords: [
      'kuka',
      'krc',
      'fanuc',
      'r-30ib',
      'r-30i',
      'r30ib',
      'abb',
      'irc5',
      'omnicore',
      'yaskawa',
      'motoman',
      'yrc1000',
      'kortex',
      'xarm control',
    ],
  },
];

function classify<K extends string>(value: string, table: { kind: K; keywords: string[] }[], fallback: K): K {
  const hay = haystack(value);
  return table.find((t) => hasAny(hay, t.keywords))?.kind ?? fallback;
}

/** Words saying people share the robot's space. */
const HUMAN_WORDS = [
  'human',
  'people',
  'operator',
  'collaborat',
  'shared',
  'worker',
  'staff',
  'public',
  'hospital',
  'warehouse',
  'store',
  'pass by',
  'aisle',
];

/**
 * How the arm shares its space with people, and the automatic-mode TCP speed that follows (mm/s).
 * - `guarded`: perimeter guarding keeps people out during automatic operation; the data-sheet speed applies.
 * - `collaborative`: people may be in the space at any time; the TCP is held to the reduced speed (250 mm/s).
 * - `ssm`: speed and separation monitoring (ISO 10218-2:2011 5.11.5.3, ISO/TS 15066 5.5.4): an area scanner switches
 *   to the reduced speed when a person enters the warning field and stops in the protective field; full speed otherwise.
 */
export type SharingMode = 'guarded' | 'collaborative' | 'ssm';

/** File names of the nodes the pack delivers and launches. */
export const DELIVERED_NODES = {
  mission_supervisor: 'robot-control-system-mission-supervisor.py',
  safety_watchdog: 'robot-control-system-safety-watchdog.py',
} as const;

function launchInclude(l: Ros2Launch): string[] {
  const args = Object.entries(l.args);
  return [
    '  - include:',
    `      file: "$(find-pkg-share ${l.pkg})/launch/${l.file}"`,
    ...(args.length > 0
      ? ['      arg:', ...args.flatMap(([k, v]) => [`        - name: "${k}"`, `          value: "${v}"`])]
      : []),
  ];
}

function supervisorNode(): string {
  return lines(
    '#!/usr/bin/env python3',
    '"""mission_supervisor: the cell\'s state machine (IDLE, RUNNING, PAUSED, FAULT).',
    '',
    'Services /mission/start, /mission/pause, /mission/resume (std_srvs/Trigger); publishes /mission/state',
    '(std_msgs/String) and /mission/heartbeat (std_msgs/Empty) every heartbeat_period_s; a True on /safety/estop',
    '(std_msgs/Bool) puts it in FAULT until /mission/start is called again. Parameters come from',
    'robot-control-system-params.yaml (mission_supervisor.ros__parameters).',
    '"""',
    'import rclpy',
    'from rclpy.node import Node',
    'from std_msgs.msg import Bool, Empty, String',
    'from std_srvs.srv import Trigger',
    '',
    '',
    'class MissionSupervisor(Node):',
    '    def __init__(self):',
    "        super().__init__('mission_supervisor')",
    "        self.declare_parameter('heartbeat_period_s', 0.1)",
    "        self.declare_parameter('state_topic', '/mission/state')",
    "        self.state = 'IDLE'",
    "        self.state_pub = self.create_publisher(String, self.get_parameter('state_topic').value, 10)",
    "        self.heartbeat_pub = self.create_publisher(Empty, '/mission/heartbeat', 10)",
    "        self.create_subscription(Bool, '/safety/estop', self.on_estop, 10)",
    "        self.create_service(Trigger, '/mission/start', self.on_start)",
    "        self.create_service(Trigger, '/mission/pause', self.on_pause)",
    "        self.create_service(Trigger, '/mission/resume', self.on_resume)",
    "        self.create_timer(self.get_parameter('heartbeat_period_s').value, self.tick)",
    '',
    '    def set_state(self, state):',
    '        if state != self.state:',
    "            self.get_logger().info(f'{self.state} -> {state}')",
    '            self.state = state',
    '',
    '    def tick(self):',
    '        self.heartbeat_pub.publish(Empty())',
    '        self.state_pub.publish(String(data=self.state))',
    '',
    '    def on_estop(self, msg):',
    '        if msg.data:',
    "            self.set_state('FAULT')",
    '',
    '    def on_start(self, _req, res):',
    "        res.success = self.state in ('IDLE', 'FAULT')",
    '        if res.success:',
    "            self.set_state('RUNNING')",
    '        res.message = self.state',
    '        return res',
    '',
    '    def on_pause(self, _req, res):',
    "        res.success = self.state == 'RUNNING'",
    '        if res.success:',
    "            self.set_state('PAUSED')",
    '        res.message = self.state',
    '        return res',
    '',
    '    def on_resume(self, _req, res):',
    "        res.success = self.state == 'PAUSED'",
    '        if res.success:',
    "            self.set_state('RUNNING')",
    '        res.message = self.state',
    '        return res',
    '',
    '',
    'def main():',
    '    rclpy.init()',
    '    rclpy.spin(MissionSupervisor())',
    '',
    '',
    "if __name__ == '__main__':",
    '    main()',
  );
}

function watchdogNode(): string {
  return lines(
    '#!/usr/bin/env python3',
    '"""safety_watchdog: requests a controlled stop when the supervisor\'s heartbeat stops.',
    '',
    'Subscribes /mission/heartbeat (std_msgs/Empty); after heartbeat_timeout_s without one it publishes True on',
    '/safety/estop (std_msgs/Bool) and, when stop_service names one (UR: /dashboard_client/pause), calls it',
    "(std_srvs/Trigger). A software layer only: the hard-wired e-stop and the controller's safety functions stay in",
    'charge (IEC 60204-1 stop category 1 is configured on the controller).',
    '"""',
    'import time',
    '',
    'import rclpy',
    'from rclpy.node import Node',
    'from std_msgs.msg import Bool, Empty',
    'from std_srvs.srv import Trigger',
    '',
    '',
    'class SafetyWatchdog(Node):',
    '    def __init__(self):',
    "        super().__init__('safety_watchdog')",
    "        self.declare_parameter('heartbeat_timeout_s', 0.3)",
    "        self.declare_parameter('estop_topic', '/safety/estop')",
    "        self.declare_parameter('stop_service', '')",
    "        self.timeout = self.get_parameter('heartbeat_timeout_s').value",
    "        self.estop_pub = self.create_publisher(Bool, self.get_parameter('estop_topic').value, 10)",
    "        service = self.get_parameter('stop_service').value",
    '        self.stop_client = self.create_client(Trigger, service) if service else None',
    '        self.last = time.monotonic()',
    '        self.tripped = False',
    "        self.create_subscription(Empty, '/mission/heartbeat', self.on_heartbeat, 10)",
    '        self.create_timer(0.05, self.check)',
    '',
    '    def on_heartbeat(self, _msg):',
    '        self.last = time.monotonic()',
    '        self.tripped = False',
    '',
    '    def check(self):',
    '        if self.tripped or time.monotonic() - self.last < self.timeout:',
    '            return',
    '        self.tripped = True',
    "        self.get_logger().error('heartbeat lost: controlled stop requested')",
    '        self.estop_pub.publish(Bool(data=True))',
    '        if self.stop_client is not None and self.stop_client.service_is_ready():',
    '            self.stop_client.call_async(Trigger.Request())',
    '',
    '',
    'def main():',
    '    rclpy.init()',
    '    rclpy.spin(SafetyWatchdog())',
    '',
    '',
    "if __name__ == '__main__':",
    '    main()',
  );
}

/**
 * Generates `robot-control-system-architecture.md`, `robot-control-system-params.yaml`,
 * `robot-control-system-launch.yaml`, `robot-control-system-safety-checklist.md` and the two nodes the launch starts
 * (`robot-control-system-mission-supervisor.py`, `robot-control-system-safety-watchdog.py`).
 *
 * The pack is configured for the named robot when the data-sheet table (robots.ts) holds it, else for the arm the
 * objective needs, and says so. Payload, reach and the asked rate are checked against the data sheet; a shortfall is
 * stated with the alternative that meets it. Reduced speed is 250 mm/s (ISO 10218-1:2011 5.6).
 * Source: seed §1, §2.1; issue 13; issue 38 §4 (docs/rubrics/robot-control-system.md).
 */
export function robotControlSystemDeliverables(ctx: DeliverableContext): DeliverableFile[] {
  const robotType = line(ctx.inputs, 'robot_type', 'robot (none named)', 120);
  const controller = line(ctx.inputs, 'controller', '', 120);
  const objective = text(ctx.inputs, 'objective', 'Pick and place parts between two fixed stations.', 2000);
  const siteConstraints = text(ctx.inputs, 'site_constraints', '', 2000);
  const needsText = `${objective} ${siteConstraints}`;
  const named = findRobot(robotType);
  // A robot outside the table has no data sheet here: the pack is configured for the arm the objective needs.
  const robot: RobotModel = named ?? suggestRobot(needsText);
  // The named controller belongs to the named robot; a replaced robot brings its own.
  const controllerText = named ? controller || robot.controller : robot.controller;
  const controllerKind = classify(controllerText, CONTROLLER_KINDS, 'generic');
  const bridge = {
    bridge: robot.driver,
    detail: `${robot.name}: ${robot.controller}; ROS 2 talks to it through ${robot.driver.split(' ')[0]}.`,
  };
  const allText = [
    robotType,
    controllerText,
    objective,
    siteConstraints,
    text(ctx.inputs, 'ros_distro', '', 100),
    text(ctx.inputs, 'ros_version', '', 100),
  ].join(' \n ');
  const distroGiven = parseRosDistro(allText);
  const distro = distroGiven ?? { id: 'jazzy', label: 'Jazzy Jalisco (LTS, Ubuntu 24.04)' };
  const needs = armNeeds(needsText);
  const payload = payloadCheck(robot, parseMaxMassKg(needsText));
  const vision = visionNeed(needsText);
  const manipulator = robot.kind === 'manipulator';
  const hay = haystack(objective, siteConstraints);
  const humansNearby = hasAny(hay, HUMAN_WORDS);
  const fenced =
    hasAny(hay, ['fence', 'fenced', 'guarding', 'guarded', 'enclosure', 'caged', 'light curtain']) &&
    !hasAny(hay, ['no fence', 'without fence', 'fenceless', 'no guarding']);
  const hazardous = hasAny(hay, [
    'atex',
    'explosive',
    'hazard',
    'chemical',
    'outdoor',
    'wet',
    'food',
    'clean room',
    'cleanroom',
  ]);

  // Shortfalls of the configured arm against the data sheet, and the arm that meets them.
  const shortfalls = manipulator ? armShortfalls(robot, needs) : [];
  const alternative = shortfalls.length > 0 ? alternativeArm(needs, robot.family) : undefined;
  const tcpMax = robot.tcp_speed_mm_s;
  const reduced = REDUCED_SPEED_MM_S;
  const rate = needs.picks_per_minute;
  const atReduced = picksPerMinuteAt(reduced, needs.palletising);
  const atFull = tcpMax !== undefined ? picksPerMinuteAt(tcpMax, needs.palletising) : null;
  let mode: SharingMode = humansNearby && !fenced ? 'collaborative' : 'guarded';
  if (mode === 'collaborative' && rate !== null && rate > atReduced && atFull !== null && atFull >= rate) mode = 'ssm';
  const autoSpeed = mode === 'collaborative' ? reduced : tcpMax;
  const rateMet =
    rate === null ? null : mode === 'collaborative' ? rate <= atReduced : atFull === null ? null : atFull >= rate;
  const notHonoured: string[] = [
    ...(!named
      ? [
          `"${robotType}" is not in our data-sheet table, so its joints, payload and reach cannot be checked: this pack is configured for the ${robot.name}, which meets the objective. To use "${robotType}"${controller ? ` with ${controller}` : ''}, send its data sheet and ROS 2 driver for a re-issue.`,
        ]
      : []),
    ...shortfalls.map(
      (s) =>
        `The ${robot.name} falls short on ${s}. ${alternative ? `The ${alternative.name} (rated ${alternative.payload_kg} kg, reach ${alternative.reach_mm} mm${alternative.tcp_speed_mm_s ? `, TCP up to ${alternative.tcp_speed_mm_s} mm/s` : ''}) meets the objective.` : 'No arm in the table meets it alone: split the load or the rate across two arms, or use an industrial palletiser.'}`,
    ),
    ...(rate !== null && humansNearby && !fenced && rate > atReduced
      ? [
          mode === 'ssm'
            ? `${rate} picks/min cannot be reached at the collaborative 250 mm/s (at most ${atReduced} picks/min under the cycle model below). The cell runs at full speed with speed and separation monitoring instead: a safety-rated area scanner slows the TCP to 250 mm/s when a person enters the warning field and stops the arm in the protective field (ISO 10218-2:2011 5.11.5.3, ISO/TS 15066 5.5.4).`
            : `${rate} picks/min cannot be reached at the collaborative 250 mm/s (at most ${atReduced} picks/min under the cycle model below)${atFull === null ? ', and the data sheet gives no TCP speed to check full speed against' : ` nor at the ${robot.name}'s full ${tcpMax} mm/s (${atFull} picks/min)`}. Alternative: ${alternative ? `the ${alternative.name}, or ` : ''}two arms sharing the rate behind an area scanner.`,
        ]
      : []),
  ];

  const ros2 = robot.ros2;
  const moveitIncluded = manipulator && ros2?.moveit ? ros2.moveit : null;
  const includes: Ros2Launch[] =
    manipulator && ros2
      ? [...(moveitIncluded?.starts_driver ? [] : [ros2.driver]), ...(moveitIncluded ? [moveitIncluded] : [])].filter(
          (l, i, all) => all.findIndex((x) => x.pkg === l.pkg && x.file === l.file) === i,
        )
      : robot.id === 'turtlebot4'
        ? [
            { pkg: 'turtlebot4_navigation', file: 'slam.launch.py', args: {} },
            { pkg: 'turtlebot4_navigation', file: 'nav2.launch.py', args: {} },
          ]
        : [];
  const needsIp = includes.some((l) => Object.values(l.args).some((v) => v.includes('$(var robot_ip)')));
  const trajectoryAction =
    robot.family === 'ur'
      ? '/scaled_joint_trajectory_controller/follow_joint_trajectory'
      : '/joint_trajectory_controller/follow_joint_trajectory';
  const stopService = robot.family === 'ur' ? '/dashboard_client/pause' : '';
  const planner = manipulator
    ? moveitIncluded
      ? 'MoveIt 2'
      : `the ${robot.name}'s own controller (no published MoveIt configuration)`
    : robot.id === 'turtlebot4'
      ? 'Nav2 (turtlebot4_navigation)'
      : `the ${robot.name}'s own navigation (missions over its REST API)`;
  const mobileSpeed = humansNearby ? 0.3 : 1.0;

  const paramsYaml = lines(
    `# ROS 2 parameters generated for order ${ctx.orderId.replace(/[\r\n]/g, ' ')}`,
    `# robot: ${robot.name} | controller: ${controllerText.replace(/[\r\n]/g, ' ')} | ROS 2 ${distro.id}`,
    `# The robot's driver (${ros2?.driver.pkg ?? robot.driver.split(' ')[0]}) loads its own ros2_control controllers; these are the pack's nodes.`,
    'mission_supervisor:',
    '  ros__parameters:',
    `    robot_type: ${yamlString(robotType)}`,
    `    controller: ${yamlString(controllerText)}`,
    `    objective: ${yamlString(objective)}`,
    `    planner: ${yamlString(planner)}`,
    `    controller_bridge: ${yamlString(bridge.bridge)}`,
    `    ros_distro: ${yamlString(distro.id)}`,
    `    robot_model: ${yamlString(robot.id)}`,
    `    joints: [${robot.joints.map((n) => JSON.stringify(n)).join(', ')}]`,
    ...(manipulator ? [`    trajectory_action: ${yamlString(trajectoryAction)}`] : []),
    `    rated_payload_kg: ${robot.payload_kg}`,
    ...(robot.reach_mm ? [`    reach_mm: ${robot.reach_mm}`] : []),
    ...(payload.load_kg !== null ? [`    max_load_kg: ${payload.load_kg}  # heaviest part + gripper allowance`] : []),
    `    payload_check: ${yamlString(payload.status)}`,
    ...(needs.reach_mm !== null ? [`    required_reach_mm: ${needs.reach_mm}`] : []),
    ...(rate !== null ? [`    required_picks_per_minute: ${rate}`] : []),
    '    heartbeat_period_s: 0.1',
    '    state_topic: "/mission/state"',
    ...(vision
      ? [
          'perception:',
          '  ros__parameters:',
          `    camera: ${yamlString(vision.kind === '3d' ? '3D structured-light camera (e.g. Zivid 2+ M60 via zivid_ros, or Photoneo PhoXi via phoxi_camera)' : '2D industrial camera (e.g. Basler ace 2 via pylon_ros2_camera)')}`,
          `    output_topic: ${yamlString(vision.kind === '3d' ? '/perception/pick_poses' : '/perception/detections')}`,
          '    frame_id: "camera_optical_frame"',
          '    hand_eye_calibration: "eye_to_hand"  # calibrate with easy_handeye2 before first picks',
          '    min_confidence: 0.8',
        ]
      : []),
    'safety_watchdog:',
    '  ros__parameters:',
    '    heartbeat_timeout_s: 0.3',
    '    estop_topic: "/safety/estop"',
    `    stop_service: ${yamlString(stopService)}`,
    ...(manipulator
      ? [
          `    reduced_speed_mps: ${(reduced / 1000).toFixed(2)}  # ISO 10218-1:2011 5.6: manual (T1) and collaborative operation`,
          `    sharing_mode: ${yamlString(mode)}`,
          ...(autoSpeed !== undefined
            ? [
                `    automatic_speed_limit_mps: ${(autoSpeed / 1000).toFixed(2)}  # ${mode === 'collaborative' ? 'collaborative: reduced speed' : mode === 'ssm' ? 'full speed while the area scanner sees nobody' : 'behind guarding'}`,
              ]
            : []),
        ]
      : [
          `    max_linear_velocity_mps: ${mobileSpeed.toFixed(2)}  # ISO 3691-4 operating zone${humansNearby ? ' shared with people' : ''}`,
        ]),
    '    on_timeout: "controlled_stop"  # IEC 60204-1 stop category 1',
    `    site_constraints: ${yamlString(siteConstraints || 'none given')}`,
  );

  const launchYaml = lines(
    `# ROS 2 YAML launch file: ros2 launch ./robot-control-system-launch.yaml${needsIp ? " (robot_ip is required: the controller's IP address)" : ''}`,
    `# Starts the ${robot.name}'s ROS 2 stack${moveitIncluded ? ' and MoveIt' : ''} from their packages and the two nodes delivered beside this file.`,
    'launch:',
    ...(needsIp
      ? ['  - arg:', '      name: "robot_ip"', `      description: "IP address of the ${robot.name} controller"`]
      : []),
    '  - arg:',
    '      name: "params_file"',
    '      default: "$(dirname)/robot-control-system-params.yaml"',
    ...includes.flatMap(launchInclude),
    '  - executable:',
    `      cmd: "python3 $(dirname)/${DELIVERED_NODES.safety_watchdog} --ros-args --params-file $(var params_file)"`,
    '      name: "safety_watchdog"',
    '      output: "screen"',
    '  - executable:',
    `      cmd: "python3 $(dirname)/${DELIVERED_NODES.mission_supervisor} --ros-args --params-file $(var params_file)"`,
    '      name: "mission_supervisor"',
    '      output: "screen"',
  );

  const speedRow = manipulator
    ? mode === 'collaborative'
      ? `collaborative: people may enter at any time, so the TCP is held to the reduced speed of ${reduced} mm/s (ISO 10218-1:2011 5.6) in automatic operation`
      : mode === 'ssm'
        ? `speed and separation monitoring: full speed (${tcpMax} mm/s data sheet) while the area scanner sees nobody, ${reduced} mm/s in the warning field, stop in the protective field`
        : `guarded: perimeter guarding keeps people out in automatic operation${tcpMax !== undefined ? ` (data sheet ${tcpMax} mm/s)` : ' (the data sheet gives no TCP speed)'}; reduced speed ${reduced} mm/s in manual (T1)`
    : `${mobileSpeed.toFixed(2)} m/s in the operating zone (ISO 3691-4)`;
  const cycleRows: string[][] =
    manipulator && rate !== null
      ? [
          ['Asked rate', `${rate} picks/min (${Math.round((60 / rate) * 100) / 100} s per cycle)`],
          [
            'At reduced speed (250 mm/s)',
            `${cycleSeconds(reduced, needs.palletising)} s per cycle, at most ${atReduced} picks/min`,
          ],
          ...(tcpMax !== undefined && atFull !== null
            ? [
                [
                  `At full speed (${tcpMax} mm/s)`,
                  `${cycleSeconds(tcpMax, needs.palletising)} s per cycle, at most ${atFull} picks/min`,
                ],
              ]
            : [
                [
                  'At full speed',
                  'the data sheet gives no TCP speed: simulate the cycle before committing to the rate',
                ],
              ]),
          [
            'Rate met',
            rateMet === null
              ? 'not checked (no TCP speed on the data sheet): simulate before committing'
              : rateMet
                ? `yes (${mode})`
                : 'no: see "Not honoured as asked"',
          ],
        ]
      : [];

  const architecture = lines(
    `# Control-system blueprint: ${md(robot.name)}`,
    '',
    mdTable(
      ['Item', 'Value'],
      [
        ['Robot type', robotType],
        ['Robot class', robot.kind],
        ['Controller', controllerText],
        ['Controller class', controllerKind],
        ['Controller bridge', bridge.bridge],
        ['Motion planning', planner],
        ['ROS 2 distribution', distroGiven ? `${distro.label} (as requested)` : `${distro.label} (none was named)`],
        [
          'Robot model',
          `${robot.name}: rated payload ${robot.payload_kg} kg${robot.reach_mm ? `, reach ${robot.reach_mm} mm` : ''}${robot.tcp_speed_mm_s ? `, TCP up to ${robot.tcp_speed_mm_s} mm/s` : ''}`,
        ],
        ['Data sheet', robot.source],
        ['Joints', robot.joints.join(', ')],
        [
          'Payload check',
          `${payload.status}: ${payload.note}${payload.suggest ? ` Consider the ${payload.suggest}.` : ''}`,
        ],
        ...(manipulator && needs.reach_mm !== null
          ? [
              [
                'Reach check',
                `${(robot.reach_mm ?? 0) >= needs.reach_mm ? 'ok' : 'short'}: ${needs.reach_mm} mm needed${needs.palletising ? ' (far corner of a 1200 x 800 mm EUR pallet from a base 300 mm beside its long side)' : ''}, ${robot.reach_mm} mm on the data sheet`,
              ],
            ]
          : []),
        ['Speed', speedRow],
        ['Vision', vision ? `${vision.kind.toUpperCase()} camera: ${vision.why}` : 'none needed for this objective'],
      ],
    ),
    payload.status === 'over'
      ? `\n> **Payload exceeded.** ${md(payload.note)}${payload.suggest ? ` The ${md(payload.suggest)} has the capacity.` : alternative ? ` The ${md(alternative.name)} has the capacity.` : ' No arm in the table carries it: split the load or use an industrial robot rated for it.'}`
      : null,
    notHonoured.length > 0 ? '\n## Not honoured as asked\n' : null,
    ...notHonoured.map((n) => `- ${md(n)}`),
    '',
    '## Objective',
    '',
    mdQuote(objective),
    siteConstraints ? '\n## Site constraints\n' : null,
    siteConstraints ? mdQuote(siteConstraints) : null,
    ...(cycleRows.length > 0
      ? [
          '',
          '## Cycle time',
          '',
          mdTable(['Item', 'Value'], cycleRows),
          '',
          `Cycle model: ${needs.palletising ? CYCLE_MODEL.transfer_m.palletising : CYCLE_MODEL.transfer_m.other} m transfer each way, ${CYCLE_MODEL.approach_m} m of approach and retreat, ${CYCLE_MODEL.handling_s} s to grip and release, an average ${CYCLE_MODEL.average_share * 100} % of the speed limit over each move. Confirm in simulation with the real layout.`,
        ]
      : []),
    '',
    '## Architecture',
    '',
    '```mermaid',
    'flowchart LR',
    '  HMI[Operator HMI / API] --> MS[mission_supervisor]',
    `  MS --> PL[${planner.replace(/[[\]()]/g, '')}]`,
    `  PL --> DRV[${(ros2?.driver.pkg ?? robot.driver.split(' ')[0] ?? 'driver').replace(/[[\]()]/g, '')}]`,
    '  DRV --> CTRL[robot controller]',
    '  SW[safety_watchdog] -- heartbeat / stop request --> DRV',
    ...(vision ? ['  CAM[camera] --> PER[perception]', '  PER -- pick poses --> MS'] : []),
    '  CTRL -- state --> DRV',
    '```',
    '',
    '| Layer | Component | Responsibility |',
    '| --- | --- | --- |',
    `| Hardware | ${md(controllerText)} | Executes motion; owns the safety functions (speed limits, zones, stops) |`,
    `| Driver | ${md(bridge.bridge)} | ${md(bridge.detail)} |`,
    `| Planning | ${md(planner)} | Collision-free trajectories / paths |`,
    '| Mission | mission_supervisor (delivered) | State machine: IDLE → RUNNING → PAUSED / FAULT; heartbeat |',
    '| Supervision | safety_watchdog (delivered) | Heartbeat watch; controlled stop request on loss (software layer only) |',
    ...(vision
      ? [
          '| Perception | camera driver and pick-pose node (built in days 4-5, not in this launch) | Where the parts are |',
        ]
      : []),
    '',
    '## Launch',
    '',
    `\`robot-control-system-launch.yaml\` starts, from their own packages: ${includes.length > 0 ? includes.map((l) => `\`${l.pkg}\` \`${l.file}\``).join(', ') : `nothing (the ${md(robot.name)} runs its own stack; the supervisor reaches it over its API)`}; and the two delivered nodes. ${manipulator && !moveitIncluded ? md(ros2?.moveit_note ?? 'No MoveIt configuration is published for this model.') + `. Alternative with a published MoveIt configuration: ${md(alternativeArm(needs, 'ur')?.name ?? 'Universal Robots UR10e')}.` : ''}`,
    '',
    '## Interfaces',
    '',
    mdTable(
      ['Name', 'Kind', 'Type', 'Purpose'],
      [
        [
          '/mission/start, /mission/pause, /mission/resume',
          'service',
          'std_srvs/srv/Trigger',
          'Operator or API control',
        ],
        ['/mission/state', 'topic', 'std_msgs/msg/String', 'Current mission state'],
        ['/mission/heartbeat', 'topic', 'std_msgs/msg/Empty', 'Supervisor alive, watched by safety_watchdog'],
        [
          '/safety/estop',
          'topic',
          'std_msgs/msg/Bool',
          'Software stop request (not a replacement for the hard-wired e-stop)',
        ],
        [
          '/joint_states',
          'topic',
          'sensor_msgs/msg/JointState',
          "Robot state from the driver's joint_state_broadcaster",
        ],
        ...(robot.id === 'turtlebot4'
          ? [
              [
                '/cmd_vel',
                'topic',
                distro.id === 'humble' || distro.id === 'foxy' || distro.id === 'iron'
                  ? 'geometry_msgs/msg/Twist'
                  : 'geometry_msgs/msg/TwistStamped',
                'Velocity commands to the base (from Nav2)',
              ],
            ]
          : []),
        ...(vision
          ? [
              [
                vision.kind === '3d' ? '/perception/pick_poses' : '/perception/detections',
                'topic',
                vision.kind === '3d' ? 'geometry_msgs/msg/PoseArray' : 'vision_msgs/msg/Detection2DArray',
                'Where the parts are',
              ],
            ]
          : []),
        ...(manipulator
          ? [[trajectoryAction, 'action', 'control_msgs/action/FollowJointTrajectory', 'Trajectory execution']]
          : []),
      ],
    ),
    '',
    '## Delivery plan (7 days)',
    '',
    '1. Day 1: design review of this blueprint with the site team; confirm layout, I/O list and network.',
    `2. Days 2-3: cell description (robot, gripper, fixtures) on the vendor's description package; the driver in simulation.`,
    `3. Days 4-5: ${md(planner)} configuration, the objective's motion sequence in mission_supervisor${vision ? ', camera driver and pick-pose node' : ''}; simulation tests.`,
    '4. Day 6: commissioning support on the real controller at reduced speed (250 mm/s).',
    '5. Day 7: acceptance tests, documentation handover.',
    '',
    '## Files',
    '',
    '- `robot-control-system-params.yaml`: parameters of the delivered nodes (supervisor, watchdog, limits).',
    '- `robot-control-system-launch.yaml`: YAML launch file; keep it beside the params file and the two nodes.',
    `- \`${DELIVERED_NODES.mission_supervisor}\`, \`${DELIVERED_NODES.safety_watchdog}\`: rclpy nodes the launch starts.`,
    '- `robot-control-system-safety-checklist.md`: checks before any motion on the real robot.',
    mdFooter(ctx),
  );

  const standards = [
    manipulator ? 'ISO 10218-1/-2:2011 (industrial robots and robot systems)' : null,
    manipulator && humansNearby
      ? 'ISO/TS 15066:2016 (collaborative operation: speed and separation, power and force limits)'
      : null,
    !manipulator ? 'ISO 3691-4:2023 (driverless industrial trucks) and ISO 13482 where robots serve people' : null,
    'ISO 12100:2010 (risk assessment and risk reduction)',
    'ISO 13849-1:2023 (performance levels of safety-related control parts)',
    'IEC 60204-1 (electrical equipment of machines, stop categories)',
    hazardous ? 'ATEX / IECEx or hygiene requirements named in the site constraints' : null,
  ].filter((x): x is string => x !== null);

  const checklist = lines(
    `# Safety checklist: ${md(robot.name)} with ${md(controllerText)}`,
    '',
    '> This checklist supports, and does not replace, a risk assessment by a competent person. This service does **not** provide safety certification.',
    '',
    '## Standards to apply',
    '',
    ...standards.map((x) => `- ${x}`),
    '',
    '## Before power-on',
    '',
    '- [ ] Risk assessment done for the objective and the site; residual risks signed off.',
    '- [ ] Hard-wired emergency stops reachable from every operator position and tested.',
    '- [ ] Safety functions (e-stop, protective stop, speed limits) implemented in the safety-rated controller or PLC, not only in ROS 2.',
    '- [ ] Workspace limits / safety zones configured in the controller.',
    manipulator && mode === 'collaborative'
      ? `- [ ] Collaborative operation: TCP speed limited to ${reduced} mm/s in the controller's safety configuration; power and force limits validated (ISO/TS 15066).`
      : manipulator && mode === 'ssm'
        ? `- [ ] Speed and separation monitoring: safety-rated area scanner fields set from the separation distance (ISO 13855); warning field → ${reduced} mm/s, protective field → stop; validated with a test piece.`
        : manipulator
          ? '- [ ] Perimeter guarding or presence detection prevents entry during automatic operation.'
          : `- [ ] Operating zones and speed limits (${mobileSpeed.toFixed(2)} m/s) set in the vehicle's safety configuration (ISO 3691-4).`,
    '- [ ] Network segmented; the robot controller is not reachable from the internet.',
    '',
    '## Before the first motion',
    '',
    '- [ ] The complete objective ran in simulation without collisions.',
    '- [ ] Watchdog tested: stopping `mission_supervisor` triggers a controlled stop request within 0.3 s.',
    manipulator
      ? `- [ ] Reduced speed active for manual (T1) operation: TCP at most ${reduced} mm/s (0.25 m/s, ISO 10218-1:2011 5.6), set in the controller.`
      : `- [ ] Speed limit active: at most ${mobileSpeed.toFixed(2)} m/s where people work.`,
    ...(manipulator && mode !== 'collaborative' && autoSpeed !== undefined
      ? [
          `- [ ] Automatic-mode speed limit (${autoSpeed} mm/s${mode === 'ssm' ? ' while the scanner fields are clear' : ', behind guarding'}) set in the controller's safety configuration.`,
        ]
      : []),
    '- [ ] Joint and velocity limits in the robot description match the data sheet.',
    `- [ ] Payload: ${payload.note}${payload.status === 'over' ? ' Do not run until the robot or the load changes.' : ''}`,
    ...(manipulator && needs.reach_mm !== null
      ? [
          `- [ ] Reach: every pick and place position within ${robot.reach_mm} mm of the base (${needs.reach_mm} mm needed).`,
        ]
      : []),
    '- [ ] Software e-stop topic `/safety/estop` tested; hard-wired e-stop tested independently.',
    '',
    '## Commissioning',
    '',
    '- [ ] First runs in manual / T1 mode with an enabling device where applicable.',
    `- [ ] Each step of the objective verified at reduced speed (${reduced} mm/s) before automatic speed.`,
    '- [ ] Fault handling verified: lost heartbeat, lost network, controller fault, sensor dropout.',
    '- [ ] Operators trained; stop and recovery procedure posted at the cell.',
    siteConstraints ? '\n## Site constraints to verify\n' : null,
    siteConstraints ? mdQuote(siteConstraints) : null,
    mdFooter(ctx),
  );

  return [
    markdownFile('robot-control-system-architecture.md', architecture),
    textFile('robot-control-system-params.yaml', MEDIA_YAML, paramsYaml),
    textFile('robot-control-system-launch.yaml', MEDIA_YAML, launchYaml),
    markdownFile('robot-control-system-safety-checklist.md', checklist),
    textFile(DELIVERED_NODES.mission_supervisor, MEDIA_TEXT, supervisorNode()),
    textFile(DELIVERED_NODES.safety_watchdog, MEDIA_TEXT, watchdogNode()),
  ];
}
