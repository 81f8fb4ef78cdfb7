import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../lambda/config.ts';
import { pollerTimeout } from '../../../lib/constructs/poller-function.ts';
import { ContextError } from '../../../lib/context.ts';
import {
  buildMonitor,
  fullContext,
  type ResourceIds,
  resourceIdStartingWith,
  resourceIds,
  synthMonitor,
} from '../synth.ts';

describe('PollerFunction', () => {
  describe('with networks, subscriptions and a new secret', () => {
    let template: Template;
    let ids: ResourceIds;

    beforeAll(() => {
      template = synthMonitor(fullContext);
      ids = resourceIds(template);
    });

    it('runs Node.js 24 on arm64, sized for a one-minute schedule, with its own log group', () => {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Runtime: 'nodejs24.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        MemorySize: 256,
        Timeout: 30,
        LoggingConfig: { LogGroup: { Ref: ids.logs } },
        Role: { 'Fn::GetAtt': [ids.role, 'Arn'] },
        ReservedConcurrentExecutions: Match.absent(),
      });
      template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
    });

    it('has the SHIELDWATCH_* environment of README Configuration and the Powertools settings, never the key', () => {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Environment: {
          Variables: {
            SHIELDWATCH_API_URL: 'https://api.example.com',
            SHIELDWATCH_API_KEY_SECRET: { Ref: ids.secret },
            SHIELDWATCH_API_KEY: Match.absent(),
            SHIELDWATCH_NETWORKS: 'net-1,net"2"',
            SHIELDWATCH_STATUS_PATH: 'data.filter.state',
            SHIELDWATCH_TABLE: { Ref: ids.table },
            SHIELDWATCH_TOPIC_ARN: { Ref: ids.topic },
            SHIELDWATCH_RETENTION_DAYS: '30',
            SHIELDWATCH_FIGURE_FIELDS: 'traffic.in_pps,links.0.pps',
            POWERTOOLS_SERVICE_NAME: 'shieldwatch',
            POWERTOOLS_METRICS_NAMESPACE: 'Shieldwatch',
            POWERTOOLS_LOG_LEVEL: 'INFO',
          },
        },
      });
    });

    it('retries a failed cycle only while it is younger than one schedule interval', () => {
      template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
        FunctionName: { Ref: ids.fn },
        MaximumRetryAttempts: 2,
        MaximumEventAgeInSeconds: 60,
      });
    });
  });

  describe("the function's optional settings", () => {
    const optional = {
      expectedStatus: ['SHIELDWATCH_EXPECTED_STATUS', ' Active '],
      remindEvery: ['SHIELDWATCH_REMIND_EVERY', '1h'],
      confirmations: ['SHIELDWATCH_CONFIRMATIONS', '2'],
      alertAfter: ['SHIELDWATCH_ALERT_AFTER', '5'],
      concurrency: ['SHIELDWATCH_CONCURRENCY', '32'],
      requestTimeoutMs: ['SHIELDWATCH_TIMEOUT_MS', '2500'],
      figureFields: ['SHIELDWATCH_FIGURE_FIELDS', 'traffic.in_pps,links.0.pps'],
    } as const;
    const variables = Object.values(optional).map(([variable]) => variable);

    /** The optional variables of the function's environment. */
    function optionalEnvironment(context: Record<string, unknown>): Record<string, unknown> {
      const template = synthMonitor(context);
      const fn =
        template.findResources('AWS::Lambda::Function')[
          resourceIdStartingWith(template, 'AWS::Lambda::Function', 'Poller')
        ]!;
      const environment = fn['Properties'].Environment.Variables as Record<string, unknown>;
      return Object.fromEntries(
        Object.entries(environment).filter(([name]) => variables.includes(name as never)),
      );
    }

    it('passes none of them when the context sets none', () => {
      expect(optionalEnvironment({})).toEqual({});
    });

    it.each([
      ['expectedStatus', { expectedStatus: ' Active ' }],
      ['expectedStatus and remindEvery', { expectedStatus: ' Active ', remindEvery: '1h' }],
      // CONTRACT §14: reminders are of every open, unacknowledged incident, with or without an expected status.
      ['remindEvery alone', { remindEvery: '1h' }],
      ['confirmations', { confirmations: '2' }],
      ['alertAfter', { alertAfter: 5 }],
      ['concurrency', { concurrency: '32' }],
      ['requestTimeoutMs', { requestTimeoutMs: 2500 }],
      ['figureFields', { figureFields: 'traffic.in_pps,links.0.pps' }],
      ['all of them', Object.fromEntries(Object.entries(optional).map(([key, [, value]]) => [key, value]))],
    ])('passes exactly the variables of %s, as the function reads them', (_name, context) => {
      // Act
      const environment = optionalEnvironment(context);

      // Assess
      expect(environment).toEqual(
        Object.fromEntries(Object.keys(context).map((key) => optional[key as keyof typeof optional])),
      );
      const functionEnv = { SHIELDWATCH_API_URL: 'https://api.example.com', SHIELDWATCH_API_KEY: 'test-key' };
      expect(() => loadConfig({ ...functionEnv, ...(environment as Record<string, string>) })).not.toThrow();
    });

    it('fails synth on bad values, naming each key', () => {
      expect(() => buildMonitor({ remindEvery: '1y', concurrency: 0 })).toThrow(ContextError);
      expect(() => buildMonitor({ remindEvery: '1y', concurrency: 0 })).toThrow(
        /remindEvery: expected a duration[\s\S]*concurrency: expected a whole number of requests in flight from 1 to 256/,
      );
    });
  });

  describe('pollerTimeout', () => {
    it.each([
      [1, 30],
      [2, 60],
      [3, 90],
      [4, 120],
      [60, 120],
      [1440, 120],
    ])('gives a schedule every %i minutes a %i s timeout', (minutes, seconds) => {
      expect(pollerTimeout(minutes).toSeconds()).toBe(seconds);
    });
  });
});
