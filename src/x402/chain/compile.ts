/**
 * Offline compilation of the local USDC look-alike with solc-js, and the generator of the committed artifact.
 *
 * Regenerate the artifact after editing `contracts/LocalUsdc.sol`:
 * ```sh
 * npx tsx src/x402/chain/compile.ts
 * ```
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import solc from 'solc';

/** Directory of the Solidity sources. */
export const CONTRACTS_DIR = path.join(__dirname, 'contracts');
/** Generated TypeScript module holding the compiled LocalUsdc (ABI `as const`, bytecode, immutable offsets). */
export const LOCAL_USDC_ARTIFACT_PATH = path.join(__dirname, 'artifacts', 'localUsdc.ts');
/** Generated TypeScript module holding Multicall3's creation code. */
export const MULTICALL3_ARTIFACT_PATH = path.join(__dirname, 'artifacts', 'multicall3.ts');

const SOURCE_NAME = 'LocalUsdc.sol';
const CONTRACT_NAME = 'LocalUsdc';
const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  outputSelection: {
    '*': {
      '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object', 'evm.deployedBytecode.immutableReferences'],
    },
  },
} as const;

/** Byte ranges of one immutable inside the runtime code. */
export type ImmutableReferences = Record<string, readonly { readonly start: number; readonly length: number }[]>;

/** What compilation yields and the artifact stores. */
export interface CompiledContract {
  contractName: string;
  solcVersion: string;
  /** sha256 over solc version, settings and source text: tells whether the artifact is stale. */
  sourceHash: string;
  abi: readonly unknown[];
  bytecode: `0x${string}`;
  deployedBytecode: `0x${string}`;
  immutableReferences: ImmutableReferences;
}

/** Error raised when solc reports errors; `errors` holds solc's formatted messages. */
export class SolidityCompileError extends Error {
  constructor(readonly errors: string[]) {
    super(`solc failed:\n${errors.join('\n')}`);
    this.name = 'SolidityCompileError';
  }
}

function readSource(): string {
  return readFileSync(path.join(CONTRACTS_DIR, SOURCE_NAME), 'utf8');
}

/** Hash identifying source, compiler and settings; compared against the artifact's `sourceHash`. */
export function computeLocalUsdcSourceHash(source: string = readSource()): string {
  return `0x${createHash('sha256')
    .update(String(solc.version()))
    .update(JSON.stringify(SETTINGS))
    .update(source)
    .digest('hex')}`;
}

/** Resolves `@openzeppelin/contracts/...` imports from node_modules for solc's import callback. */
function findImport(importPath: string): { contents: string } | { error: string } {
  const prefix = '@openzeppelin/contracts/';
  if (!importPath.startsWith(prefix)) return { error: `import not found: ${importPath}` };
  try {
    const root = path.dirname(require.resolve('@openzeppelin/contracts/package.json'));
    return { contents: readFileSync(path.join(root, importPath.slice(prefix.length)), 'utf8') };
  } catch (error) {
    return { error: `cannot read ${importPath}: ${error instanceof Error ? error.message : String(error)}` };
  }
}

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts?: Record<
    string,
    Record<
      string,
      {
        abi: unknown[];
        evm: {
          bytecode: { object: string };
          deployedBytecode: { object: string; immutableReferences?: ImmutableReferences };
        };
      }
    >
  >;
}

/**
 * Compiles `contracts/LocalUsdc.sol` with solc-js (a few seconds, no network).
 *
 * @throws SolidityCompileError when solc reports an error.
 */
export function compileLocalUsdc(): CompiledContract {
  const source = readSource();
  const input = { language: 'Solidity', sources: { [SOURCE_NAME]: { content: source } }, settings: SETTINGS };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImport })) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error').map((e) => e.formattedMessage);
  if (errors.length > 0) throw new SolidityCompileError(errors);
  const contract = output.contracts?.[SOURCE_NAME]?.[CONTRACT_NAME];
  if (!contract) throw new SolidityCompileError([`no ${CONTRACT_NAME} in solc output`]);
  return {
    contractName: CONTRACT_NAME,
    solcVersion: String(solc.version()),
    sourceHash: computeLocalUsdcSourceHash(source),
    abi: contract.abi,
    bytecode: `0x${contract.evm.bytecode.object}`,
    deployedBytecode: `0x${contract.evm.deployedBytecode.object}`,
    immutableReferences: contract.evm.deployedBytecode.immutableReferences ?? {},
  };
}

/**
 * The generated module of a compiled contract: one line per field and per ABI entry, kept as written by
 * `prettier-ignore` (expanded, the ABI alone is some 800 lines; issue 27 §2 keeps files in src/x402 under 400).
 */
export function localUsdcArtifactModule(compiled: CompiledContract): string {
  const fields = Object.entries(compiled).map(([key, value]) =>
    Array.isArray(value)
      ? `  ${key}: [\n${value.map((entry) => `    ${JSON.stringify(entry)},`).join('\n')}\n  ],`
      : `  ${key}: ${JSON.stringify(value)},`,
  );
  return (
    `// Generated by src/x402/chain/compile.ts from contracts/LocalUsdc.sol. Do not edit.\n` +
    `// Regenerate: npx tsx src/x402/chain/compile.ts\n` +
    `// prettier-ignore\n` +
    `export const localUsdcArtifact = {\n${fields.join('\n')}\n} as const;\n`
  );
}

/** Compiles LocalUsdc and writes the generated artifact module. */
export function writeLocalUsdcArtifact(): CompiledContract {
  const compiled = compileLocalUsdc();
  writeFileSync(LOCAL_USDC_ARTIFACT_PATH, localUsdcArtifactModule(compiled));
  return compiled;
}

/**
 * Multicall3's creation code, taken from viem, which carries it (unexported) for deployless multicalls.
 * No installed package exports it and the machine has no network, so the generator reads viem's module file.
 */
export function extractMulticall3CreationCode(): { creationBytecode: `0x${string}`; source: string } {
  const viemRoot = path.dirname(require.resolve('viem/package.json'));
  const viemVersion = (JSON.parse(readFileSync(path.join(viemRoot, 'package.json'), 'utf8')) as { version: string })
    .version;
  const text = readFileSync(path.join(viemRoot, '_cjs', 'constants', 'contracts.js'), 'utf8');
  const match = /multicall3Bytecode\s*=\s*'(0x[0-9a-fA-F]+)'/.exec(text);
  if (!match?.[1]) throw new Error(`multicall3Bytecode not found in viem ${viemVersion}`);
  return {
    creationBytecode: match[1] as `0x${string}`,
    source: `viem@${viemVersion} constants/contracts multicall3Bytecode`,
  };
}

/** Writes the generated Multicall3 module from {@link extractMulticall3CreationCode}. */
export function writeMulticall3Artifact(): void {
  const artifact = extractMulticall3CreationCode();
  const text =
    `// Generated by src/x402/chain/compile.ts. Do not edit.\n` +
    `// Multicall3 (https://github.com/mds1/multicall) creation code; running it yields the runtime code that\n` +
    `// scripts/lib/chain.ts places at 0xcA11bde05977b3631167028862bE2a173976CA11 with anvil_setCode.\n` +
    `export const multicall3Artifact = ${JSON.stringify(artifact, null, 2)} as const;\n`;
  writeFileSync(MULTICALL3_ARTIFACT_PATH, text);
}

if (require.main === module) {
  const started = Date.now();
  const compiled = writeLocalUsdcArtifact();
  writeMulticall3Artifact();
  console.log(
    `wrote ${path.relative(process.cwd(), LOCAL_USDC_ARTIFACT_PATH)} (solc ${compiled.solcVersion}, ` +
      `${(compiled.deployedBytecode.length - 2) / 2} bytes runtime) and ` +
      `${path.relative(process.cwd(), MULTICALL3_ARTIFACT_PATH)} in ${Date.now() - started} ms`,
  );
}
