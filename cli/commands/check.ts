import { createApiKeyProvider } from '../../lambda/adapters/api-key.ts';
import { createSecretsClient } from '../../lambda/adapters/secrets-client.ts';
import { createApiClient } from '../../lambda/composition-root.ts';
import { loadConfig, type MonitorConfig } from '../../lambda/config.ts';
import { extractFigures, figureCandidates } from '../../lambda/core/detect/figures.ts';
import { DEFAULT_STATUS_PATHS, displayStatus, extractStatus } from '../../lambda/core/detect/status.ts';
import { describeShape, suggestStatusPaths } from '../../lambda/core/shape.ts';
import type { ApiResponse } from '../../lambda/core/types.ts';
import { SETTINGS, unknownSettings } from '../../lambda/settings.ts';
import { defineCommand } from '../args.ts';
import { digestLine } from '../check/digest.ts';
import { printExpectedStatus } from '../check/expected-status.ts';
import { printRules } from '../check/rules.ts';
import { clip, palette, printable, renderTable, useColour } from '../format.ts';
import { type CliIo, println } from '../io.ts';

const OWNER_FIELDS = [
  'name',
  'fullName',
  'username',
  'login',
  'email',
  'company',
  'organization',
  'account',
  'id',
];

function answer(response: ApiResponse): string {
  const http = response.httpStatus === undefined ? 'no answer' : `HTTP ${response.httpStatus}`;
  return `${http} in ${Math.round(response.latencyMs)} ms`;
}

/** The owner's identifying fields from an unknown /api/user body, searched one level deep too. */
function ownerSummary(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const candidates = [
    body,
    ...Object.values(body).filter((v) => typeof v === 'object' && v !== null && !Array.isArray(v)),
  ];
  for (const candidate of candidates) {
    const record = candidate as Record<string, unknown>;
    const parts = OWNER_FIELDS.filter(
      (f) => Object.hasOwn(record, f) && ['string', 'number'].includes(typeof record[f]),
    ).map((f) => `${f}=${clip(printable(String(record[f])), 60)}`);
    if (parts.length > 0) return parts.join(', ');
  }
  return undefined;
}

function keySource(config: MonitorConfig): string {
  return config.apiKey.kind === 'secret'
    ? `Secrets Manager secret ${config.apiKey.secretId}`
    : 'SHIELDWATCH_API_KEY';
}

/** A value as a shell word: as it is when plain, otherwise single-quoted. */
function shellWord(text: string): string {
  return /^[A-Za-z0-9._,=/-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The numeric paths seen in each network's body, the configured figure fields that none of them holds, and
 * a ready-to-paste choice of figure fields (ids and timestamps left out).
 */
function printFigureFields(
  io: CliIo,
  config: MonitorConfig,
  networks: readonly ApiResponse[],
  warn: string,
): void {
  const answered = networks.flatMap((response, i) =>
    response.ok ? [{ id: config.networks[i] ?? '', body: response.json }] : [],
  );
  if (answered.length === 0) return;
  const { perBody, suggested } = figureCandidates(answered.map(({ body }) => body));
  println(
    io.stdout,
    'figure fields  numeric paths seen (each chosen one is a metric per network, $0.30 a month)',
  );
  for (const [i, { id }] of answered.entries()) {
    const paths = perBody[i] ?? [];
    println(
      io.stdout,
      `  ${clip(printable(id), 40)}: ${paths.length === 0 ? '(none)' : clip(printable(paths.join(', ')), 300)}`,
    );
  }
  const chosen = config.figureFields;
  if (chosen.length > 0) {
    const seen = new Set(perBody.flat());
    const missing = chosen.filter((field) => !seen.has(field));
    println(io.stdout, `  chosen       ${printable(chosen.join(','))}`);
    if (missing.length > 0) {
      println(
        io.stdout,
        `  ${warn}         not a number in any answer: ${printable(missing.join(', '))} (no metric until it is)`,
      );
    }
  }
  if (suggested.length === 0) {
    println(io.stdout, '  no suggestion: every numeric path looks like an id or a time');
    return;
  }
  const list = shellWord(suggested.join(','));
  println(io.stdout, '  suggested (ids and times left out; keep the ones you will graph or alarm on):');
  println(io.stdout, `    export ${SETTINGS.figureFields.env}=${list}`);
  println(io.stdout, `    npx cdk deploy -c ${SETTINGS.figureFields.context}=${list}`);
}

export const checkCommand = defineCommand({
  name: 'check',
  description: [
    'Validates the configuration, then calls the API once per endpoint without storing anything:',
    '  - GET /api/user: shows who owns the key;',
    '  - GET /api/filter/status: shows the status found and the path it came from; when none is found,',
    "    prints the body's structure and how to set SHIELDWATCH_STATUS_PATH;",
    '  - GET /api/networks/{id}/realtime for each network in SHIELDWATCH_NETWORKS: its numeric figures,',
    '    the numeric paths seen and a suggested SHIELDWATCH_FIGURE_FIELDS (the figures sent as metrics);',
    '  - the rules in force (SHIELDWATCH_RULES), each against each network that answered: the value it',
    '    reads and whether it meets the condition now, or "path missing" (or of another type) with the',
    '    nearest numeric path of the body;',
    '  - SHIELDWATCH_EXPECTED_STATUS against the status found and those the store recorded (its newest',
    '    1000 filter snapshots, when this directory or the AWS settings have a store): one that differs only',
    '    in case or spaces, or is a likely typo, is a failure; one never reported is a warning.',
    '  - the digest settings (SHIELDWATCH_DIGEST, _AT, _TZ) when set: checked, with the next due time.',
    'Run it before deploying. The key is never printed.',
  ].join('\n'),
  options: {},
  examples: ['check', 'check --env-file prod.env'],
  notes: [
    'Exit codes: 0 ready to monitor: the key is accepted, the filter status is readable and every network',
    'in SHIELDWATCH_NETWORKS answered with 2xx (a failing /api/user alone is only a warning: the monitor',
    'does not need it), and every rule reads a value on some network; 1 not ready: the key, the status or',
    'any network failed (they are named), a rule reads nothing on any network that answered, the expected',
    'status differs from a status seen only in case or spaces (or by a typo), or an unknown SHIELDWATCH_*',
    'variable (probably a typo) is set; 2 bad configuration.',
  ].join('\n'),
  async run(_values, io: CliIo) {
    const config = loadConfig(io.env);
    const colour = palette(useColour(io.stdout, io.env));
    const ok = colour.green('ok');
    const fail = colour.red('FAIL');
    const warn = colour.yellow('warn');
    const keys = createApiKeyProvider(
      config.apiKey,
      io.env,
      config.apiKey.kind === 'secret' ? createSecretsClient(io.env) : undefined,
    );
    // A misspelt setting is ignored everywhere else (with a warning); here it means "not ready".
    const unknown = unknownSettings(io.env);
    println(io.stdout, `configuration  ${unknown.length === 0 ? ok : fail}`);
    for (const { name, suggestion } of unknown) {
      println(
        io.stdout,
        `  unknown      ${name}${suggestion === undefined ? '' : ` (did you mean ${suggestion}?)`}`,
      );
    }
    println(io.stdout, `  API          ${config.apiUrl}`);
    println(io.stdout, `  key          from ${keySource(config)}`);
    println(
      io.stdout,
      `  networks     ${config.networks.length === 0 ? '(none: filter only)' : config.networks.map(printable).join(', ')}`,
    );
    println(
      io.stdout,
      `  status path  ${config.statusPath ?? `(default: first of ${DEFAULT_STATUS_PATHS.join(', ')})`}`,
    );
    println(
      io.stdout,
      `  alerts       ${config.topicArn ?? 'terminal / log only (SHIELDWATCH_TOPIC_ARN not set)'}`,
    );
    const digest = digestLine(io.env, io.now());
    if (digest !== undefined) {
      println(io.stdout, `  digest       ${digest.problem === undefined ? '' : `${fail} `}${digest.line}`);
    }
    try {
      await keys.get();
    } catch (error) {
      println(io.stdout, `key            ${fail} ${(error as Error).message}`);
      return 1;
    }
    const api = createApiClient(config, keys);
    try {
      const deadlineMs = io.now() + config.cycleTimeoutMs;
      const [user, filter, networks] = await Promise.all([
        api.getUser({ deadlineMs }),
        api.getFilterStatus({ deadlineMs }),
        Promise.all(config.networks.map((id) => api.getNetworkRealtime(id, { deadlineMs }))),
      ]);
      const problems: string[] = unknown.length === 0 ? [] : ['unknown SHIELDWATCH_* variable(s)'];
      if (digest?.problem !== undefined) problems.push(digest.problem);

      if (user.ok) {
        println(
          io.stdout,
          `key owner      ${ok} ${ownerSummary(user.json) ?? '(no name or email field)'} (${answer(user)})`,
        );
      } else {
        // The monitor never calls /api/user: only a rejected key there makes the setup unready.
        const rejected = user.errorKind === 'auth';
        if (rejected) problems.push('the key was rejected');
        println(
          io.stdout,
          `key owner      ${rejected ? fail : warn} ${user.errorKind}: ${printable(user.error ?? '')} (${answer(user)})${rejected ? '' : ' (not needed to monitor)'}`,
        );
      }

      const warnings: string[] = [];
      let statusNow: string | undefined;
      if (!filter.ok) {
        problems.push('the filter status could not be read');
        println(
          io.stdout,
          `filter status  ${fail} ${filter.errorKind}: ${printable(filter.error ?? '')} (${answer(filter)})`,
        );
      } else {
        const reading = extractStatus(filter.json, config.statusPath, filter.text);
        if (reading.ok) {
          statusNow = reading.status;
          println(
            io.stdout,
            `filter status  ${ok} ${JSON.stringify(displayStatus(reading.status))} at ${reading.path} (${answer(filter)})`,
          );
        } else {
          problems.push('no filter status found in the answer');
          println(io.stdout, `filter status  ${fail} ${reading.error} (${answer(filter)})`);
          println(io.stdout, '  the body looks like this:');
          for (const line of describeShape(filter.json)) println(io.stdout, `    ${line}`);
          const suggestions = suggestStatusPaths(filter.json);
          if (suggestions.length > 0) {
            println(io.stdout, `  candidates: ${suggestions.join(', ')}`);
            println(io.stdout, `  set the path, e.g.: export SHIELDWATCH_STATUS_PATH=${suggestions[0]}`);
          } else {
            println(
              io.stdout,
              '  set SHIELDWATCH_STATUS_PATH to the dot path of the status, e.g. data.filter.state',
            );
          }
        }
      }

      const expected = await printExpectedStatus(io, config, statusNow, { ok, warn, fail });
      if (expected.problem !== undefined) problems.push(expected.problem);
      if (expected.warning !== undefined) warnings.push(expected.warning);

      if (networks.length > 0) {
        const rows = networks.map((response, i) => [
          clip(printable(config.networks[i] ?? ''), 40),
          response.ok ? ok : fail,
          answer(response),
          clip(
            printable(
              response.ok
                ? extractFigures(response.json, 6)
                    .map(([path, value]) => `${path}=${value}`)
                    .join(' ') || '(no numeric fields)'
                : `${response.errorKind}: ${response.error ?? ''}`,
            ),
            100,
          ),
        ]);
        println(io.stdout, 'networks');
        println(
          io.stdout,
          renderTable(['id', 'result', 'answer', 'figures / error'], rows).replace(/^/gm, '  '),
        );
        printFigureFields(io, config, networks, warn);
        const failed = config.networks.filter((_, i) => networks[i]?.ok !== true);
        if (failed.length > 0) {
          const names = failed.map((id) => JSON.stringify(clip(printable(id), 40)));
          problems.push(
            `${failed.length === 1 ? 'network' : 'networks'} ${names.join(', ')} not ready (${failed.length} of ${networks.length} failed)`,
          );
        }
      }
      const { blind, metNow } = printRules(io, config, networks, { ok, fail });
      for (const { rule, networks: met } of metNow) {
        // No surprise alert: a rule already over its line alerts within its first cycles.
        warnings.push(
          `rule ${JSON.stringify(rule)} meets its condition now on ${met.map((id) => clip(printable(id), 40)).join(', ')} (it alerts within its first cycles)`,
        );
      }
      if (blind.length > 0) {
        problems.push(
          `${blind.length === 1 ? 'rule' : 'rules'} ${blind.map((name) => JSON.stringify(name)).join(', ')} ${blind.length === 1 ? 'reads' : 'read'} nothing on any network (it can never trigger)`,
        );
      }
      if (problems.length === 0) {
        println(
          io.stdout,
          warnings.length === 0
            ? colour.green('ready to monitor')
            : `${colour.green('ready to monitor')}, ${colour.yellow(`but ${warnings.join('; ')} (see above)`)}`,
        );
        return 0;
      }
      println(io.stdout, colour.red(`not ready: ${problems.join('; ')} (see FAIL above)`));
      return 1;
    } finally {
      await api.close();
    }
  },
});
