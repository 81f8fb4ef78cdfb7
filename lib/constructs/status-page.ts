import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  HttpVersion,
  PriceClass,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import type { StatusPageMode } from '../context-status-page.ts';
import { StatusPageSigningKey } from './status-page-signing-key.ts';

/** Properties of {@link StatusPage}. */
export interface StatusPageProps {
  /** `private`: CloudFront serves only URLs signed by the stack's own key; `public`: anyone. */
  readonly mode: StatusPageMode;
}

/**
 * The page's CSP as a header, on top of each page's own (both apply): nothing is loaded from anywhere, inline
 * scripts and styles only (the report is one self-contained file), no frames, forms or base changes.
 */
export const STATUS_PAGE_CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * The hosted status page (docs/status-page.md): a private bucket (public access blocked, encrypted, TLS only)
 * that CloudFront alone reads, through origin access control, served over HTTPS only with security headers.
 * `private` adds the stack's signing key (a key group): every request needs a signed URL.
 */
export class StatusPage extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  /** `private` only. */
  readonly signingKey?: StatusPageSigningKey;
  /** `https://<distribution>/`. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: StatusPageProps) {
    super(scope, id);
    // Kept by `cdk destroy`, like the table: it holds the last page, which stays private (docs: removal).
    this.bucket = new Bucket(this, 'Bucket', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: false,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Only CloudFront reads this bucket (origin access control) and only the publisher writes four fixed ' +
        'objects; server access logs would record nothing else, at the price of another bucket.',
    });

    this.signingKey = props.mode === 'private' ? new StatusPageSigningKey(this, 'SigningKey') : undefined;
    const headers = new ResponseHeadersPolicy(this, 'Headers', {
      comment: 'shieldwatch status page: security headers',
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: STATUS_PAGE_CSP, override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        // A signed URL must not travel to another site in a Referer header.
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: {
          accessControlMaxAge: Duration.days(365),
          includeSubdomains: true,
          override: true,
        },
      },
      customHeadersBehavior: {
        customHeaders: [
          {
            header: 'X-Robots-Tag',
            value: props.mode === 'private' ? 'noindex, nofollow' : 'noarchive',
            override: true,
          },
        ],
      },
    });
    this.distribution = new Distribution(this, 'Distribution', {
      comment: `shieldwatch status page (${props.mode})`,
      defaultRootObject: 'index.html',
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        // Query strings are not in the cache key: one cached copy serves every signed URL.
        cachePolicy: CachePolicy.CACHING_OPTIMIZED,
        responseHeadersPolicy: headers,
        compress: true,
        ...(this.signingKey === undefined ? {} : { trustedKeyGroups: [this.signingKey.keyGroup] }),
      },
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_100,
    });
    Validations.of(this.distribution).acknowledge(
      {
        id: 'AwsSolutions-CFR1',
        reason:
          'A status page has no reason to refuse a country; private pages are refused to anyone without a ' +
          'signed URL anyway.',
      },
      {
        id: 'AwsSolutions-CFR2',
        reason:
          'Four static objects behind CloudFront; a web ACL costs more each month than the page itself and ' +
          'has nothing to filter (no form, no query, no origin logic).',
      },
      {
        id: 'AwsSolutions-CFR3',
        reason:
          'Access logs need another bucket with ACLs enabled; the page holds nothing to audit beyond what ' +
          'CloudFront metrics show (docs/status-page.md says how to turn them on).',
      },
      {
        id: 'AwsSolutions-CFR4',
        reason:
          'The default *.cloudfront.net certificate, whose security policy CloudFront fixes (browsers negotiate ' +
          'TLS 1.2 or 1.3 with it); a minimum protocol needs a custom domain and its certificate (docs/status-page.md).',
      },
    );
    this.url = `https://${this.distribution.distributionDomainName}/`;
  }
}
