/**
 * What a channel that AWS forwards alerts to through an EventBridge API destination is
 * (docs/channels.md): a small descriptor that {@link AlertForwarding} turns into a queue, a connection, an API
 * destination, a pipe and an alarm. Data only (no construct, no AWS call), so that the context parser reads
 * the channels' keys from the same list as the stack. Model: Gatus's `alerting/provider/<name>/`.
 */
/**
 * What a channel's request values may be made of at synth time: the secret (as a CloudFormation dynamic
 * reference: its value never enters the template) and the stack's name.
 */
export interface ChannelValues {
  readonly secret: string;
  readonly stackName: string;
}

/** A value of the channel's requests, made when the stack is synthesized. */
export type ChannelValue = (values: ChannelValues) => string;

/**
 * An SNS filter policy on string message attributes (docs/alerts.md, message attributes: `event`, `action`, ...): the attribute
 * must be one of the values listed.
 */
export type ChannelFilterPolicy = Readonly<Record<string, readonly string[]>>;

/** One API-destination channel. `K` is its context key, so that the settings are typed per channel. */
export interface ForwardingChannel<K extends `${string}Secret` = `${string}Secret`> {
  /**
   * The construct id, prefix of every logical id of the channel's resources. Renaming it replaces the
   * deployed queue, pipe and connection (alerts waiting in the old queue are lost).
   */
  readonly id: string;
  /** The context key naming the secret (name or complete ARN) that the channel reads at deploy time. */
  readonly contextKey: K;
  /** The channel in descriptions and the alarm's text: "alerts to {label}". */
  readonly label: string;
  /** What the secret holds, for the settings' JSDoc and the docs. */
  readonly secretHolds: string;
  /** The https URL the requests go to (a fixed one, or the secret when the URL is the credential). */
  readonly endpoint: ChannelValue;
  /**
   * The connection's API-key header. EventBridge connections need an authorization; a channel that reads
   * its credential from elsewhere sends a header the receiver ignores.
   */
  readonly apiKey: { readonly header: string; readonly value: ChannelValue };
  /**
   * Body parameters the connection adds to every request's JSON object, kept by EventBridge as secrets
   * (never returned by DescribeConnection). A credential that belongs in the body goes here, never into the
   * input template: the pipe's configuration is returned in clear by DescribePipe.
   * @default - none
   */
  readonly secretBodyParameters?: Readonly<Record<string, ChannelValue>>;
  /**
   * The pipe's input template over the SQS record whose body is the `sqs` document (`AlertDocument`):
   * `<$.body.x>` is a field of the document, `<$.body>` the whole. A plain string: it cannot hold a secret.
   */
  readonly inputTemplate: string;
  /**
   * Which alerts the channel's subscription takes.
   * @default - every alert of the topic
   */
  readonly filterPolicy?: ChannelFilterPolicy;
}
