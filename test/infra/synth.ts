/**
 * Synthesis helpers for the infrastructure tests: the stack as `cdk synth` builds it (the context of
 * cdk.json, feature flags included), with bundling skipped unless a test needs the bundle.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { MonitorStack } from '../../lib/monitor-stack.ts';

/** The project root. */
export const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

/** The `context` of cdk.json: feature flags, telemetry off, the sample apiUrl. */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(`${projectRoot}cdk.json`, 'utf8')) as {
    context: Record<string, unknown>;
  };
  return cdkJson.context;
}

/** Options of {@link synthMonitor}. */
export interface SynthOptions {
  /**
   * Run esbuild (needs lambda/handler.ts).
   * @default false
   */
  readonly bundle?: boolean;
  /** Where to write the cloud assembly. @default - a temporary directory */
  readonly outdir?: string;
}

/** Builds the app of bin/app.ts (without cdk-nag) with extra context; returns the stack. */
export function buildMonitor(
  context: Record<string, unknown> = {},
  options: SynthOptions = {},
): MonitorStack {
  const app = new App({
    context: {
      ...cdkJsonContext(),
      ...(options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] }),
      ...context,
    },
    // The built-in CloudFormation schema check adds ~1.5 s per synth; `cdk synth` in CI runs it.
    builtinCloudFormationValidation: false,
    ...(options.outdir === undefined ? {} : { outdir: options.outdir }),
  });
  return new MonitorStack(app, 'Shieldwatch');
}

/** Synthesizes the stack with extra context and returns its template. */
export function synthMonitor(context: Record<string, unknown> = {}, options: SynthOptions = {}): Template {
  return Template.fromStack(buildMonitor(context, options));
}

/** The logical id of the only resource of a type. */
export function onlyResourceId(template: Template, type: string): string {
  const ids = Object.keys(template.findResources(type));
  if (ids.length !== 1) throw new Error(`expected one ${type}, found ${ids.length}`);
  return ids[0]!;
}

/** The logical id of the only resource of a type whose id starts with `prefix` (its construct path). */
export function resourceIdStartingWith(template: Template, type: string, prefix: string): string {
  const ids = Object.keys(template.findResources(type)).filter((id) => id.startsWith(prefix));
  if (ids.length !== 1)
    throw new Error(`expected one ${type} with an id starting ${prefix}, found ${ids.length}`);
  return ids[0]!;
}

/**
 * Renders a CloudFormation value (Fn::Join, Ref, Fn::GetAtt) to a string with `<Ref>` / `<Id.Attr>`
 * placeholders, to read dashboard bodies and ARNs built from parts.
 */
export function renderCfn(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  const object = value as Record<string, unknown>;
  if ('Ref' in object) return `<${String(object['Ref'])}>`;
  if ('Fn::GetAtt' in object) return `<${(object['Fn::GetAtt'] as string[]).join('.')}>`;
  if ('Fn::Join' in object) {
    const [separator, parts] = object['Fn::Join'] as [string, unknown[]];
    return parts.map(renderCfn).join(separator);
  }
  if ('Fn::Sub' in object) return String(object['Fn::Sub']);
  return JSON.stringify(value);
}
