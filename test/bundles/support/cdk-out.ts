import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../../lib/constructs/shared/platform-function.js';

/** Where `cdk synth` (scripts/test.sh's synth step) writes the cloud assembly. */
export const CDK_OUT = join(REPO_ROOT, 'cdk.out');

/** Said whenever the assembly is missing: this stage reuses the synth step's bundles, never builds its own. */
export const RUN_SYNTH_FIRST =
  `no cloud assembly at ${CDK_OUT}: run the synth step first (\`npx cdk synth --quiet --all\`, as scripts/test.sh does); ` +
  'this stage tests the bundles that synth wrote and does not build them again';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export interface Template {
  readonly Resources?: Record<string, { Type: string; Properties?: JsonObject; Metadata?: JsonObject }>;
  readonly Outputs?: Record<string, { Value: Json }>;
}

interface StackArtifact {
  readonly name: string;
  readonly region: string;
  readonly template: Template;
  readonly assetManifest: string | undefined;
}

/** One `AWS::Lambda::Function` of a synthesized template, with its code located in cdk.out. */
export interface SynthesizedFunction {
  readonly stack: string;
  readonly region: string;
  readonly logicalId: string;
  /** The construct path below the stack, e.g. `Messages/Worker/Function` (stable across stack prefixes). */
  readonly path: string;
  readonly runtime: string;
  /** `index.handler`: module file and export, as Lambda reads it. */
  readonly handler: string;
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
  /** The unzipped asset directory (what Lambda puts in /var/task), found through the asset manifest. */
  readonly codeDir: string;
  /** The environment as the template declares it: strings, or CloudFormation intrinsics. */
  readonly environment: Readonly<Record<string, Json>>;
}

/** A resource another function's environment refers to, as CloudFormation would resolve it. */
export interface ResourceReference {
  readonly stack: string;
  readonly logicalId: string;
  readonly type: string;
  /** Construct path below the stack, without a trailing `/Resource`. */
  readonly path: string;
  /** `Ref`, or the GetAtt attribute (`Arn`, `Id`, `DomainName`, ...). */
  readonly attribute: string;
}

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;

const belowStack = (cdkPath: string) => cdkPath.split('/').slice(1).join('/').replace(/\/Resource$/, '');

/** The stacks of the cloud assembly in cdk.out, and their Lambda functions. */
export class CloudAssembly {
  readonly stacks: ReadonlyMap<string, StackArtifact>;
  /** When synth wrote it (the manifest's mtime). */
  readonly writtenAt: Date;

  constructor(readonly dir: string = CDK_OUT) {
    const manifestFile = join(dir, 'manifest.json');
    if (!existsSync(manifestFile)) throw new Error(RUN_SYNTH_FIRST);
    this.writtenAt = statSync(manifestFile).mtime;
    type Artifact = { type: string; environment?: string; properties?: JsonObject };
    const manifest = readJson<{ artifacts: Record<string, Artifact> }>(manifestFile);
    const stacks = new Map<string, StackArtifact>();
    for (const [id, artifact] of Object.entries(manifest.artifacts)) {
      if (artifact.type !== 'aws:cloudformation:stack') continue;
      const templateFile = String(artifact.properties?.templateFile ?? `${id}.template.json`);
      const region = artifact.environment?.split('/').pop() ?? '';
      const assets = manifest.artifacts[`${id}.assets`]?.properties?.file;
      stacks.set(id, {
        name: id,
        region,
        template: readJson<Template>(join(dir, templateFile)),
        assetManifest: typeof assets === 'string' ? join(dir, assets) : undefined,
      });
    }
    this.stacks = stacks;
  }

  /** Every AWS::Lambda::Function of every stack, with its code directory located through the stack's asset manifest. */
  functions(): SynthesizedFunction[] {
    const out: SynthesizedFunction[] = [];
    for (const stack of this.stacks.values()) {
      for (const [logicalId, resource] of Object.entries(stack.template.Resources ?? {})) {
        if (resource.Type !== 'AWS::Lambda::Function') continue;
        const p = resource.Properties ?? {};
        const cdkPath = String(resource.Metadata?.['aws:cdk:path'] ?? logicalId);
        out.push({
          stack: stack.name,
          region: stack.region,
          logicalId,
          path: belowStack(cdkPath),
          runtime: String(p.Runtime),
          handler: String(p.Handler),
          timeoutSeconds: Number(p.Timeout ?? 3),
          memoryMb: Number(p.MemorySize ?? 128),
          codeDir: this.codeDirOf(stack, logicalId, p.Code),
          environment: ((p.Environment as JsonObject | undefined)?.Variables ?? {}) as Record<string, Json>,
        });
      }
    }
    return out;
  }

  /**
   * The asset directory of a function's `Code`: its S3Key is the object key the asset manifest
   * publishes a source to, which is exactly how `cdk deploy` finds what to upload.
   */
  private codeDirOf(stack: StackArtifact, logicalId: string, code: Json | undefined): string {
    const key = (code as JsonObject | undefined)?.S3Key;
    if (typeof key !== 'string') throw new Error(`${stack.name}/${logicalId}: Code has no S3Key (inline code is not a bundle)`);
    if (!stack.assetManifest) throw new Error(`${stack.name}: no asset manifest in ${this.dir}`);
    type FileAsset = {
      source: { path: string; packaging?: string };
      destinations: Record<string, { objectKey: string }>;
    };
    const files = readJson<{ files: Record<string, FileAsset> }>(stack.assetManifest).files;
    for (const asset of Object.values(files)) {
      if (!Object.values(asset.destinations).some((d) => d.objectKey === key)) continue;
      const dir = join(this.dir, asset.source.path);
      if (asset.source.packaging !== 'zip' || !existsSync(dir) || !statSync(dir).isDirectory()) {
        throw new Error(`${stack.name}/${logicalId}: asset ${asset.source.path} is not an unzipped directory in ${this.dir}`);
      }
      return dir;
    }
    throw new Error(`${stack.name}/${logicalId}: no asset in ${stack.assetManifest} publishes ${key}`);
  }

  /**
   * Resolves an environment value as CloudFormation would at deploy time: strings as they are,
   * `Fn::GetStackOutput` through the producing stack's output to its resource, `Ref`/`Fn::GetAtt`
   * and `Fn::Join`/`Fn::Sub` over them; each resource becomes what `resolve` says it is locally.
   */
  resolveValue(
    stackName: string,
    value: Json,
    resolve: (ref: ResourceReference) => string,
    pseudo: Readonly<Record<string, string>>,
  ): string {
    const stack = this.stacks.get(stackName);
    if (!stack) throw new Error(`no stack ${stackName} in ${this.dir}`);
    const again = (v: Json, s: string = stackName) => this.resolveValue(s, v, resolve, pseudo);
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    if (value === null || Array.isArray(value)) throw new Error(`unsupported environment value ${JSON.stringify(value)}`);
    const [fn, arg] = Object.entries(value)[0] ?? [];
    const resource = (logicalId: string, attribute: string) => {
      const r = stack.template.Resources?.[logicalId];
      if (!r) throw new Error(`${stackName}: no resource ${logicalId}`);
      const cdkPath = String(r.Metadata?.['aws:cdk:path'] ?? logicalId);
      return resolve({ stack: stackName, logicalId, type: r.Type, path: belowStack(cdkPath), attribute });
    };
    switch (fn) {
      case 'Ref': {
        const name = String(arg);
        if (name.startsWith('AWS::')) {
          const v = pseudo[name];
          if (v === undefined) throw new Error(`no local value for the pseudo parameter ${name}`);
          return v;
        }
        return resource(name, 'Ref');
      }
      case 'Fn::GetAtt': {
        const [logicalId, attribute] = Array.isArray(arg) ? arg.map(String) : String(arg).split('.');
        return resource(String(logicalId), String(attribute));
      }
      case 'Fn::Join': {
        const [sep, parts] = arg as [string, Json[]];
        return parts.map((p) => again(p)).join(sep);
      }
      case 'Fn::Sub': {
        const [text, vars] = (Array.isArray(arg) ? arg : [arg, {}]) as [string, JsonObject];
        return text.replace(/\$\{([^}]+)\}/g, (_, name: string) =>
          name in vars ? again(vars[name] as Json) : name.includes('.') ? again({ 'Fn::GetAtt': name }) : again({ Ref: name }));
      }
      case 'Fn::GetStackOutput': {
        const { StackName, OutputName } = arg as { StackName: string; OutputName: string };
        const producer = this.stacks.get(StackName);
        const output = producer?.template.Outputs?.[OutputName];
        if (!output) throw new Error(`Fn::GetStackOutput: no output ${OutputName} in stack ${StackName}`);
        return again(output.Value, StackName);
      }
      default:
        throw new Error(`unsupported intrinsic ${fn ?? '(empty object)'} in ${JSON.stringify(value)}`);
    }
  }
}
