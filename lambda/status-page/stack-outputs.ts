/**
 * The stack outputs of the status page (lib/monitor-stack.ts writes them, `shieldwatch page-link` reads them).
 * Here, without the CDK, so that the CLI can name them without loading the stack's code.
 */
export const STATUS_PAGE_OUTPUTS = {
  /** `https://<distribution>/`. */
  url: 'StatusPageUrl',
  /** Private: the CloudFront public key id (`Key-Pair-Id` of a signed URL). */
  keyId: 'StatusPageKeyId',
  /** Private: the ARN of the secret that holds the private key. */
  keySecret: 'StatusPageKeySecret',
} as const;
