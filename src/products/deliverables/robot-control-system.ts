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
import { findRobot, parseMaxMassKg, parseRosDistro, payloadCheck, visionNeed, type RobotModel } from './robots';
import type { DeliverableContext, DeliverableFile } from './types';
import {
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
  snake,
  text,
  textFile,
  yamlString,
} from './util';

type RobotKind = 'manipulator' | 'mobile' | 'aerial' | 'legged' | 'gantry' | 'generic';
type ControllerKind =
  'plc' | 'universal_robots' | 'ros2_native' | 'microcontroller' | 'flight_controller' | 'vendor' | 'generic';

const ROBOT_KINDS: { kind: RobotKind; keywords: string[] }[] = [
  {
    kind: 'manipulator',
    keywords: [
      'arm',
      'manipulator',
      'cobot',
      '6-axis',
      '6 axis',
      'axis',
      'scara',
      'delta',
      'pick',
      'ur3',
      'ur5',
      'ur10',
      'ur16',
      'ur20',
      'kuka',
      'fanuc',
      'abb',
      'franka',
      'kinova',
    ],
  },
  {
    kind: 'mobile',
    keywords: ['amr', 'agv', 'mobile', 'wheel', 'diff', 'rover', 'forklift', 'cart', 'turtlebot', 'base'],
  },
  { kind: 'aerial', keywords: ['drone', 'uav', 'quad', 'multicopter', 'aerial'] },
  { kind: 'legged', keywords: ['legged', 'quadruped', 'humanoid', 'biped', 'spot', 'unitree'] },
  { kind: 'gantry', keywords: ['gantry', 'cartesian', 'xyz', 'cnc', 'linear'] },
];

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

const CONTROLLER_BRIDGES: Record<ControllerKind, { bridge: string; detail: string }> = {
  plc: {
    bridge: 'OPC UA / Modbus TCP bridge node',
    detail:
      'The PLC keeps the safety and I/O logic; ROS 2 reads state and writes setpoints through OPC UA (preferred) or Modbus TCP, with a heartbeat the PLC monitors.',
  },
  universal_robots: {
    bridge: 'ur_robot_driver (ros2_control hardware interface)',
    detail:
      'The official Universal Robots ROS 2 driver exposes the arm through ros2_control; the External Control URCap must run on the teach pendant.',
  },
  ros2_native: {
    bridge: 'ros2_control hardware interface',
    detail: 'The controller already speaks ROS 2: controllers load through controller_manager directly.',
  },
  microcontroller: {
    bridge: 'micro-ROS agent',
    detail:
      'The microcontroller runs a micro-ROS client over serial or UDP; the micro_ros_agent on the host bridges it into the ROS 2 graph.',
  },
  flight_controller: {
    bridge: 'PX4 uXRCE-DDS bridge / MAVROS',
    detail:
      'PX4 publishes its uORB topics into ROS 2 through the uXRCE-DDS agent (ArduPilot through MAVROS or its DDS interface); offboard setpoints go through the same bridge.',
  },
  vendor: {
    bridge: 'vendor motion interface (e.g. KUKA RSI/FRI, ABB EGM, FANUC Stream Motion)',
    detail:
      'The vendor controller stays in charge of motion and safety; ROS 2 streams setpoints through the vendor real-time interface wrapped as a ros2_control hardware interface.',
  },
  generic: {
    bridge: 'custom ros2_control hardware interface',
    detail:
      'A hardware interface plugin (read/write at the control rate) wraps the controller protocol; its exact transport is fixed during the design review.',
  },
};

function classify<K extends string>(value: string, table: { kind: K; keywords: string[] }[], fallback: K): K {
  const hay = haystack(value);
  return table.find((t) => hasAny(hay, t.keywords))?.kind ?? fallback;
}

function controllersFor(
  kind: RobotKind,
  robot: RobotModel | undefined,
  distro: string,
): { name: string; type: string; params: [string, string][] }[] {
  const jointList = (names: string[]): string => `[${names.map((n) => JSON.stringify(n)).join(', ')}]`;
  const jsb = {
    name: 'joint_state_broadcaster',
    type: 'joint_state_broadcaster/JointStateBroadcaster',
    params: [] as [string, string][],
  };
  switch (kind) {
    case 'manipulator':
      return [
        jsb,
        {
          name: 'joint_trajectory_controller',
          type: 'joint_trajectory_controller/JointTrajectoryController',
          params: [
            [
              'joints',
              robot?.kind === 'manipulator' ? jointList(robot.joints) : '["REPLACE_WITH_JOINT_NAMES_FROM_THE_URDF"]',
            ],
            ['command_interfaces', '["position"]'],
            ['state_interfaces', '["position", "velocity"]'],
            ['state_publish_rate', '100.0'],
            ['action_monitor_rate', '20.0'],
            ['allow_partial_joints_goal', 'false'],
          ],
        },
      ];
    case 'mobile':
      return [
        jsb,
        {
          name: 'diff_drive_controller',
          type: 'diff_drive_controller/DiffDriveController',
          params: [
            ['left_wheel_names', jointList([robot?.wheels?.left ?? 'left_wheel_joint'])],
            ['right_wheel_names', jointList([robot?.wheels?.right ?? 'right_wheel_joint'])],
            ['wheel_separation', robot?.wheels ? String(robot.wheels.separation) : '0.40  # REPLACE: measure'],
            ['wheel_radius', robot?.wheels ? String(robot.wheels.radius) : '0.08  # REPLACE: measure'],
            // Humble's diff_drive_controller takes geometry_msgs/Twist unless told otherwise; Jazzy takes TwistStamped.
            ...(distro === 'humble' || distro === 'foxy' || distro === 'iron'
              ? ([['use_stamped_vel', 'false']] as [string, string][])
              : []),
            ['publish_rate', '50.0'],
            ['base_frame_id', '"base_link"'],
            ['odom_frame_id', '"odom"'],
            ['cmd_vel_timeout', '0.5'],
            ['linear.x.max_velocity', '1.0'],
            ['angular.z.max_velocity', '1.5'],
          ],
        },
      ];
    case 'gantry':
      return [
        jsb,
        {
          name: 'joint_trajectory_controller',
          type: 'joint_trajectory_controller/JointTrajectoryController',
          params: [
            ['joints', '["axis_x", "axis_y", "axis_z"]'],
            ['command_interfaces', '["position"]'],
            ['state_interfaces', '["position", "velocity"]'],
          ],
        },
      ];
    case 'legged':
      return [
        jsb,
        {
          name: 'joint_group_effort_controller',
          type: 'effort_controllers/JointGroupEffortController',
          params: [['joints', '["REPLACE_WITH_LEG_JOINTS"]']],
        },
      ];
    case 'aerial':
      return [];
    default:
      return [
        jsb,
        {
          name: 'forward_position_controller',
          type: 'forward_command_controller/ForwardCommandController',
          params: [
            ['joints', '["REPLACE_WITH_JOINTS"]'],
            ['interface_name', '"position"'],
          ],
        },
      ];
  }
}

/**
 * Generates `robot-control-system-architecture.md`, `robot-control-system-params.yaml`,
 * `robot-control-system-launch.yaml` and `robot-control-system-safety-checklist.md`.
 * Source: seed §1, §2.1.
 */
export function robotControlSystemDeliverables(ctx: DeliverableContext): DeliverableFile[] {
  const robotType = line(ctx.inputs, 'robot_type', 'robot (type to be confirmed)', 120);
  const controller = line(ctx.inputs, 'controller', 'controller (to be confirmed)', 120);
  const objective = text(ctx.inputs, 'objective', 'Objective to be confirmed.', 2000);
  const siteConstraints = text(ctx.inputs, 'site_constraints', '', 2000);
  const robot = findRobot(robotType);
  const robotKind: RobotKind = robot?.kind ?? classify(robotType, ROBOT_KINDS, 'generic');
  const controllerKind = classify(controller, CONTROLLER_KINDS, 'generic');
  // A known robot's own driver is the bridge, whatever else the controller text mentions.
  const bridge = robot
    ? {
        bridge: robot.driver,
        detail: `${robot.name}: ${robot.controller}; ROS 2 talks to it through ${robot.driver.split(' ')[0]}.`,
      }
    : CONTROLLER_BRIDGES[controllerKind];
  const allText = [
    robotType,
    controller,
    objective,
    siteConstraints,
    text(ctx.inputs, 'ros_distro', '', 100),
    text(ctx.inputs, 'ros_version', '', 100),
  ].join(' \n ');
  const distroGiven = parseRosDistro(allText);
  const distro = distroGiven ?? { id: 'jazzy', label: 'Jazzy Jalisco (LTS, Ubuntu 24.04)' };
  const partKg = parseMaxMassKg(`${objective} ${siteConstraints}`);
  const payload = payloadCheck(robot, partKg);
  const vision = visionNeed(`${objective} ${siteConstraints}`);
  const pkg = `${snake(robot?.id ?? robotType, 'robot', 24)}_bringup`;
  const controllers = controllersFor(robotKind, robot, distro.id);
  const hay = haystack(objective, siteConstraints);
  const humansNearby = hasAny(hay, [
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
  ]);
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
  const planner =
    robotKind === 'manipulator' || robotKind === 'gantry'
      ? 'MoveIt 2'
      : robotKind === 'mobile'
        ? 'Nav2'
        : robotKind === 'aerial'
          ? 'PX4 offboard mission'
          : 'custom behaviour tree';
  const maxLinear = humansNearby ? 0.25 : 1.0;

  const paramsYaml = lines(
    `# ROS 2 parameters generated for order ${ctx.orderId.replace(/[\r\n]/g, ' ')}`,
    `# robot: ${robotType.replace(/[\r\n]/g, ' ')} | controller: ${controller.replace(/[\r\n]/g, ' ')} | ROS 2 ${distro.id}`,
    '# Values marked REPLACE_WITH_ and the kinematic values must be confirmed against the robot description.',
    controllers.length > 0 ? 'controller_manager:' : null,
    controllers.length > 0 ? '  ros__parameters:' : null,
    controllers.length > 0 ? '    update_rate: 100  # Hz' : null,
    ...controllers.flatMap((c) => [`    ${c.name}:`, `      type: ${c.type}`]),
    ...controllers
      .filter((c) => c.params.length > 0)
      .flatMap((c) => [`${c.name}:`, '  ros__parameters:', ...c.params.map(([k, v]) => `    ${k}: ${v}`)]),
    'mission_supervisor:',
    '  ros__parameters:',
    `    robot_type: ${yamlString(robotType)}`,
    `    controller: ${yamlString(controller)}`,
    `    objective: ${yamlString(objective)}`,
    `    planner: ${yamlString(planner)}`,
    `    controller_bridge: ${yamlString(bridge.bridge)}`,
    `    ros_distro: ${yamlString(distro.id)}`,
    ...(robot ? [`    robot_model: ${yamlString(robot.id)}`, `    rated_payload_kg: ${robot.payload_kg}`] : []),
    ...(payload.load_kg !== null ? [`    max_load_kg: ${payload.load_kg}  # heaviest part + gripper allowance`] : []),
    `    payload_check: ${yamlString(payload.status)}`,
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
    '    heartbeat_period_s: 0.1',
    '    state_topic: "/mission/state"',
    'safety_watchdog:',
    '  ros__parameters:',
    '    heartbeat_timeout_s: 0.3',
    '    estop_topic: "/safety/estop"',
    `    max_linear_velocity_mps: ${maxLinear.toFixed(2)}`,
    `    max_joint_velocity_scale: ${humansNearby ? '0.25' : '1.0'}`,
    '    on_timeout: "controlled_stop"  # IEC 60204-1 stop category 1',
    `    collaborative_zone: ${humansNearby ? 'true' : 'false'}`,
    `    site_constraints: ${yamlString(siteConstraints || 'none given')}`,
  );

  const spawned = controllers.map((c) => c.name);
  const launchYaml = lines(
    `# ROS 2 YAML launch file (ros2 launch ${pkg} bringup.launch.yaml)`,
    'launch:',
    '  - arg:',
    '      name: "use_sim"',
    '      default: "true"',
    '  - arg:',
    '      name: "params_file"',
    `      default: "$(find-pkg-share ${pkg})/config/robot-control-system-params.yaml"`,
    '  - node:',
    '      pkg: "robot_state_publisher"',
    '      exec: "robot_state_publisher"',
    '      param:',
    '        - name: "robot_description"',
    `          value: "$(command 'xacro $(find-pkg-share ${pkg})/urdf/robot.urdf.xacro use_sim:=$(var use_sim)')"`,
    ...(controllers.length > 0
      ? [
          '  - node:',
          '      pkg: "controller_manager"',
          '      exec: "ros2_control_node"',
          '      param:',
          '        - from: "$(var params_file)"',
          ...spawned.flatMap((name) => [
            '  - node:',
            '      pkg: "controller_manager"',
            '      exec: "spawner"',
            `      args: "${name} --controller-manager /controller_manager"`,
          ]),
        ]
      : []),
    ...(controllerKind === 'microcontroller'
      ? ['  - executable:', '      cmd: "ros2 run micro_ros_agent micro_ros_agent serial --dev /dev/ttyUSB0"']
      : []),
    ...(controllerKind === 'flight_controller' ? ['  - executable:', '      cmd: "MicroXRCEAgent udp4 -p 8888"'] : []),
    ...(vision
      ? [
          '  - node:',
          `      pkg: "${pkg}"`,
          '      exec: "perception"',
          '      name: "perception"',
          '      param:',
          '        - from: "$(var params_file)"',
        ]
      : []),
    '  - node:',
    `      pkg: "${pkg}"`,
    '      exec: "safety_watchdog"',
    '      name: "safety_watchdog"',
    '      param:',
    '        - from: "$(var params_file)"',
    '  - node:',
    `      pkg: "${pkg}"`,
    '      exec: "mission_supervisor"',
    '      name: "mission_supervisor"',
    '      param:',
    '        - from: "$(var params_file)"',
  );

  const architecture = lines(
    `# Control-system blueprint: ${md(robotType)}`,
    '',
    mdTable(
      ['Item', 'Value'],
      [
        ['Robot type', robotType],
        ['Robot class', robotKind],
        ['Controller', controller],
        ['Controller class', controllerKind],
        ['Controller bridge', bridge.bridge],
        ['Motion planning', planner],
        ['ROS 2 distribution', distroGiven ? `${distro.label} (as requested)` : `${distro.label} (none was named)`],
        ...(robot
          ? [
              [
                'Robot model',
                `${robot.name}: rated payload ${robot.payload_kg} kg${robot.reach_mm ? `, reach ${robot.reach_mm} mm` : ''}`,
              ],
              ['Joints', robot.joints.join(', ')],
            ]
          : [['Robot model', 'not in the model table: joint names and payload to be taken from its data sheet']]),
        [
          'Payload check',
          `${payload.status}: ${payload.note}${payload.suggest ? ` Consider the ${payload.suggest}.` : ''}`,
        ],
        ['Vision', vision ? `${vision.kind.toUpperCase()} camera: ${vision.why}` : 'none needed for this objective'],
        ['Bring-up package', pkg],
      ],
    ),
    payload.status === 'over'
      ? `\n> **Payload exceeded.** ${md(payload.note)}${payload.suggest ? ` The ${md(payload.suggest)} has the capacity.` : ' Choose a robot with a higher rated payload.'}`
      : null,
    '',
    '## Objective',
    '',
    mdQuote(objective),
    siteConstraints ? '\n## Site constraints\n' : null,
    siteConstraints ? mdQuote(siteConstraints) : null,
    '',
    '## Architecture',
    '',
    '```mermaid',
    'flowchart LR',
    '  HMI[Operator HMI / API] --> MS[mission_supervisor]',
    `  MS --> PL[${planner}]`,
    '  PL --> CM[controller_manager / ros2_control]',
    '  CM --> HW[hardware interface / bridge]',
    '  HW --> CTRL[robot controller]',
    '  SW[safety_watchdog] -- heartbeat / e-stop --> CM',
    ...(vision ? ['  CAM[camera] --> PER[perception]', '  PER -- pick poses --> MS'] : []),
    '  CTRL -- state --> HW',
    '```',
    '',
    '| Layer | Component | Responsibility |',
    '| --- | --- | --- |',
    `| Hardware | ${md(controller)} | Executes motion; owns the hard-wired safety functions |`,
    `| Bridge | ${md(bridge.bridge)} | ${md(bridge.detail)} |`,
    `| Control | ${controllers.length ? controllers.map((c) => c.name).join(', ') : 'flight controller internal loops'} | Closed-loop control at 100 Hz |`,
    `| Planning | ${planner} | Collision-free trajectories / paths |`,
    '| Mission | mission_supervisor | Sequences the objective as a state machine: IDLE → READY → RUNNING → PAUSED / FAULT |',
    '| Supervision | safety_watchdog | Heartbeat, velocity limits, controlled stop on fault (software layer only) |',
    '',
    '## Interfaces',
    '',
    mdTable(
      ['Name', 'Kind', 'Type', 'Purpose'],
      [
        ['/mission/command', 'service', 'std_srvs/srv/Trigger (start, pause, resume)', 'Operator or API control'],
        ['/mission/state', 'topic', 'std_msgs/msg/String', 'Current mission state'],
        [
          '/safety/estop',
          'topic',
          'std_msgs/msg/Bool',
          'Software stop request (not a replacement for the hard-wired e-stop)',
        ],
        ['/joint_states', 'topic', 'sensor_msgs/msg/JointState', 'Robot state from joint_state_broadcaster'],
        ...(robotKind === 'mobile'
          ? [
              [
                '/diff_drive_controller/cmd_vel',
                'topic',
                distro.id === 'humble' || distro.id === 'foxy' || distro.id === 'iron'
                  ? 'geometry_msgs/msg/Twist'
                  : 'geometry_msgs/msg/TwistStamped',
                'Velocity commands to the base',
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
        ...(robotKind === 'manipulator' || robotKind === 'gantry'
          ? [
              [
                '/joint_trajectory_controller/follow_joint_trajectory',
                'action',
                'control_msgs/action/FollowJointTrajectory',
                'Trajectory execution',
              ],
            ]
          : []),
      ],
    ),
    '',
    '## Delivery plan (7 days)',
    '',
    '1. Day 1: design review of this blueprint with the site team; confirm kinematics, I/O list and network.',
    '2. Days 2-3: robot description (URDF/xacro), hardware interface or bridge, controllers in simulation.',
    `3. Days 4-5: ${planner} configuration, mission state machine, watchdog; simulation tests of the objective.`,
    '4. Day 6: commissioning support on the real controller at reduced speed.',
    '5. Day 7: acceptance tests, documentation handover.',
    '',
    '## Files',
    '',
    '- `robot-control-system-params.yaml`: ROS 2 parameters (controllers, supervisor, watchdog limits).',
    `- \`robot-control-system-launch.yaml\`: YAML launch file for the \`${pkg}\` package.`,
    '- `robot-control-system-safety-checklist.md`: checks before any motion on the real robot.',
    mdFooter(ctx),
  );

  const standards = [
    robotKind === 'manipulator' ? 'ISO 10218-1/-2 (industrial robots and robot systems)' : null,
    robotKind === 'manipulator' && humansNearby
      ? 'ISO/TS 15066 (collaborative operation: power and force limits)'
      : null,
    robotKind === 'mobile' ? 'ISO 3691-4 (driverless industrial trucks) and ISO 13482 where robots serve people' : null,
    robotKind === 'aerial' ? 'local aviation authority rules for the operation category' : null,
    'ISO 12100 (risk assessment and risk reduction)',
    'ISO 13849-1 (performance levels of safety-related control parts)',
    'IEC 60204-1 (electrical equipment of machines, stop categories)',
    hazardous ? 'ATEX / IECEx or hygiene requirements named in the site constraints' : null,
  ].filter((s): s is string => s !== null);

  const checklist = lines(
    `# Safety checklist: ${md(robotType)} with ${md(controller)}`,
    '',
    '> This checklist supports, and does not replace, a risk assessment by a competent person. This service does **not** provide safety certification.',
    '',
    '## Standards to apply',
    '',
    ...standards.map((s) => `- ${s}`),
    '',
    '## Before power-on',
    '',
    '- [ ] Risk assessment done for the objective and the site; residual risks signed off.',
    '- [ ] Hard-wired emergency stops reachable from every operator position and tested.',
    '- [ ] Safety functions (e-stop, protective stop, speed limits) implemented in the safety-rated controller or PLC, not only in ROS 2.',
    '- [ ] Workspace limits / safety zones configured in the controller.',
    humansNearby
      ? '- [ ] Collaborative zone: speed and separation monitoring or power-and-force limits validated.'
      : '- [ ] Perimeter guarding or presence detection prevents entry during automatic operation.',
    '- [ ] Network segmented; the robot controller is not reachable from the internet.',
    '',
    '## Before the first motion',
    '',
    '- [ ] The complete objective ran in simulation without collisions.',
    `- [ ] Watchdog tested: stopping \`mission_supervisor\` triggers a controlled stop within ${0.3} s.`,
    `- [ ] Reduced speed active (max ${maxLinear.toFixed(2)} m/s linear${humansNearby ? ', 25 % joint speed' : ''}).`,
    '- [ ] Joint and velocity limits in the robot description match the data sheet.',
    `- [ ] Payload: ${payload.note}${payload.status === 'over' ? ' Do not run until the robot or the load changes.' : ''}`,
    '- [ ] Software e-stop topic `/safety/estop` tested; hard-wired e-stop tested independently.',
    '',
    '## Commissioning',
    '',
    '- [ ] First runs in manual / T1 mode with an enabling device where applicable.',
    '- [ ] Each step of the objective verified at reduced speed before full speed.',
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
  ];
}
