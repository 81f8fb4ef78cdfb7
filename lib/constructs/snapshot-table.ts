import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';

/** The TTL attribute of snapshot items (epoch seconds), set by the poller from `SHIELDWATCH_RETENTION_DAYS`. */
export const SNAPSHOT_TTL_ATTRIBUTE = 'expiresAt';

/**
 * The DynamoDB table of snapshots, status transitions and monitor state (key schema: CONTRACT §7).
 * On demand (a poll every minute is far below any provisioned minimum), point-in-time recovery on,
 * and retained when the stack is deleted: the history outlives the monitor.
 */
export class SnapshotTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.table = new Table(this, 'Table', {
      partitionKey: { name: 'pk', type: AttributeType.STRING },
      sortKey: { name: 'sk', type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: SNAPSHOT_TTL_ATTRIBUTE,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}
