import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE } from '../../lambda/adapters/table-schema.ts';

/**
 * The DynamoDB table of snapshots, status transitions and monitor state; its key schema and TTL attribute
 * come from lambda/adapters/table-schema.ts, which the store uses too (docs/design/storage.md).
 * On demand (a poll every minute is far below any provisioned minimum), point-in-time recovery on,
 * and retained when the stack is deleted: the history outlives the monitor.
 */
export class SnapshotTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.table = new Table(this, 'Table', {
      partitionKey: { name: PARTITION_KEY, type: AttributeType.STRING },
      sortKey: { name: SORT_KEY, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: TTL_ATTRIBUTE,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}
