/**
 * The context keys of the alert channels that AWS fans out from the topic (docs/channels.md): AWS
 * Chatbot's Slack and Microsoft Teams channels, and the secret of each forwarding channel (PagerDuty, a
 * webhook: `lib/channels/`). Pure: every problem names its key.
 */
import { FORWARDING_CHANNELS, FORWARDING_CONTEXT_KEYS, type ForwardingContextKey } from './channels/index.ts';
import { optional, type Parsed, parseSecretId, show } from './context-values.ts';

/** The context keys of the alert channels, in the order of docs/deploy.md, Deploy: chat ids, then each forwarding channel's secret. */
export const CHANNEL_CONTEXT_KEYS = [
  'slackWorkspaceId',
  'slackChannelId',
  'teamsTenantId',
  'teamsTeamId',
  'teamsChannelId',
  ...FORWARDING_CONTEXT_KEYS,
] as const;

/** One of {@link CHANNEL_CONTEXT_KEYS}. */
export type ChannelContextKey = (typeof CHANNEL_CONTEXT_KEYS)[number];

/** A Slack channel that AWS Chatbot posts to, in a workspace authorised once in the Chatbot console. */
export interface SlackChannel {
  /** e.g. `T07EA123LEP`. */
  readonly workspaceId: string;
  /** e.g. `C07EZ1ABC23`. */
  readonly channelId: string;
}

/** A Microsoft Teams channel that AWS Chatbot posts to, in a tenant authorised once in the Chatbot console. */
export interface TeamsChannel {
  readonly tenantId: string;
  readonly teamId: string;
  /** As the Chatbot console shows it, URL-encoded: `19%3a...%40thread.tacv2`. */
  readonly channelId: string;
}

/**
 * The secret (name or complete ARN) of each forwarding channel that is set, under the channel's context key;
 * what each secret holds is its descriptor's `secretHolds`.
 */
export type ForwardingSecrets = { readonly [K in ForwardingContextKey]?: string };

/** The alert channels of one deployment; each is absent when its keys are unset. */
export interface ChannelSettings extends ForwardingSecrets {
  readonly slack?: SlackChannel;
  readonly teams?: TeamsChannel;
}

/** The channels a deployment has, by name for people (`Slack`, `Teams`) or context key: the subscribers' warning. */
export const CHANNEL_NAMES = ['Slack', 'Teams', ...FORWARDING_CONTEXT_KEYS] as const;

/** How many of the channels are set (a Slack or Teams channel counts once). */
export function channelCount(channels: ChannelSettings): number {
  return [channels.slack, channels.teams, ...FORWARDING_CONTEXT_KEYS.map((key) => channels[key])].filter(
    (channel) => channel !== undefined,
  ).length;
}

const UUID = /^[0-9A-Fa-f]{8}(?:-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12}$/;

/** The patterns AWS::Chatbot accepts for each id (checked here, so that synth fails rather than the deploy). */
const ID_FORMATS: Readonly<
  Record<Exclude<ChannelContextKey, `${string}Secret`>, { test: RegExp; like: string }>
> = {
  slackWorkspaceId: { test: /^[0-9A-Z]{1,255}$/, like: 'T07EA123LEP (upper-case letters and digits)' },
  slackChannelId: { test: /^[A-Za-z0-9]{1,255}$/, like: 'C07EZ1ABC23 (letters and digits)' },
  teamsTenantId: { test: UUID, like: 'a UUID such as 12345678-1234-1234-1234-123456789012' },
  teamsTeamId: { test: UUID, like: 'a UUID such as 12345678-1234-1234-1234-123456789012' },
  teamsChannelId: {
    test: /^[a-zA-Z0-9\-_=+/.,]*%3[aA][a-zA-Z0-9\-_=+/.,]*%40[a-zA-Z0-9\-_=+/.,]*$/,
    like: '19%3ab6ef35dc342d4b9e9fc5ee1c56e1ad1f%40thread.tacv2 (URL-encoded, as the Chatbot console shows it)',
  },
};

function parseId(key: keyof typeof ID_FORMATS, value: unknown): Parsed<string> {
  const format = ID_FORMATS[key];
  if (typeof value === 'string' && value.length <= 255 && format.test.test(value)) {
    return { ok: true, value };
  }
  return { ok: false, problem: `expected an id like ${format.like}, got ${show(value)}` };
}

/**
 * The channels from the context. `present(key)` is the key's value, undefined when unset. A Slack pair or a
 * Teams triple is all or nothing: half of one names the keys that are missing.
 */
export function parseChannelContext(present: (key: ChannelContextKey) => unknown): {
  readonly settings: ChannelSettings;
  readonly problems: readonly string[];
} {
  const problems: string[] = [];
  const take = <T>(key: ChannelContextKey, parsed: Parsed<T>): T | undefined => {
    if (parsed.ok) return parsed.value;
    problems.push(`${key}: ${parsed.problem}`);
    return undefined;
  };
  const id = (key: keyof typeof ID_FORMATS) =>
    take(
      key,
      optional(present(key), (v) => parseId(key, v)),
    );
  const group = <K extends keyof typeof ID_FORMATS>(
    keys: readonly K[],
    what: string,
  ): Record<K, string> | undefined => {
    const set = keys.filter((key) => present(key) !== undefined);
    if (set.length === 0) return undefined;
    const values = keys.map((key) => [key, id(key)] as const);
    for (const key of keys.filter((key) => present(key) === undefined)) {
      problems.push(
        `${key}: required with ${set.join(' and ')} (${what} needs ${keys.join(', ')}): set it too, or unset ${set.join(' and ')}`,
      );
    }
    return values.every(([, value]) => value !== undefined)
      ? (Object.fromEntries(values) as Record<K, string>)
      : undefined;
  };

  const slack = group(['slackWorkspaceId', 'slackChannelId'], 'a Slack channel');
  const teams = group(['teamsTenantId', 'teamsTeamId', 'teamsChannelId'], 'a Microsoft Teams channel');
  const secrets = FORWARDING_CHANNELS.flatMap(({ contextKey }) => {
    const secret = take(contextKey, optional(present(contextKey), parseSecretId));
    return secret === undefined ? [] : [[contextKey, secret] as const];
  });
  return {
    problems,
    settings: {
      ...(slack === undefined
        ? {}
        : { slack: { workspaceId: slack.slackWorkspaceId, channelId: slack.slackChannelId } }),
      ...(teams === undefined
        ? {}
        : {
            teams: {
              tenantId: teams.teamsTenantId,
              teamId: teams.teamsTeamId,
              channelId: teams.teamsChannelId,
            },
          }),
      ...(Object.fromEntries(secrets) as ForwardingSecrets),
    },
  };
}
