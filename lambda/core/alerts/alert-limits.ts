/** The size limits of an alert's texts (docs/alerts.md, and the SNS limits). */

/** Longest SNS subject: SNS requires fewer than 100 characters. */
export const SUBJECT_MAX_CHARS = 99;

/** Longest SMS text: one GSM message. */
export const SMS_MAX_CHARS = 160;

/**
 * Largest email text, in UTF-8 bytes. One SNS message (at most 256 KiB) carries the email twice (`default` and
 * `email`), JSON-escaped (which can double the size of quotes and backslashes), plus the SMS, subject and
 * attributes; 60 000 bytes keeps the worst case under the limit.
 */
export const EMAIL_MAX_BYTES = 60_000;

/** Most networks listed in an email; the rest are counted. */
export const EMAIL_MAX_NETWORKS = 50;

/** Most figures listed per network in an email; the rest are counted. */
export const EMAIL_MAX_FIGURES = 20;

/** Longest message attribute value, in UTF-16 code units. */
export const ATTRIBUTE_MAX_CHARS = 1024;

/** The product name: the default monitor name in subjects and SMS, and the email footer. */
export const PRODUCT = 'shieldwatch';
