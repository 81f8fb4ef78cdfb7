/**
 * The cycle's snapshots, stored as they settle: a batch is written as soon as it fills, while the other
 * requests go on, so that after the last answer only the last batch is left to write (docs/design: the cycle).
 * As many writes as one write of all of them at the end: one per {@link SNAPSHOT_BATCH} snapshots.
 */
import type { Snapshot } from './core/types.ts';
import { describeError, StoreError } from './errors.ts';
import type { SnapshotStore } from './ports.ts';

/** Snapshots per write: what one DynamoDB BatchWriteItem takes. */
export const SNAPSHOT_BATCH = 25;

/** Collects snapshots and writes them a full batch at a time; {@link finish} writes the rest. */
export class SnapshotBatches {
  readonly #store: SnapshotStore;
  readonly #expiresAt: number;
  #batch: Snapshot[] = [];
  readonly #writes: Array<Promise<void>> = [];
  #failure: { readonly error: unknown } | undefined;

  /** `expiresAt`: epoch seconds, the snapshots' time to live. */
  constructor(store: SnapshotStore, expiresAt: number) {
    this.#store = store;
    this.#expiresAt = expiresAt;
  }

  /** Adds a snapshot; a batch that fills is written now. */
  add(snapshot: Snapshot): void {
    this.#batch.push(snapshot);
    if (this.#batch.length >= SNAPSHOT_BATCH) this.#write();
  }

  /**
   * Writes what is left and waits for every write. Rejects with a {@link StoreError} when any batch could not
   * be written (every batch is still tried: one that fails holds back no other).
   */
  async finish(): Promise<void> {
    if (this.#batch.length > 0) this.#write();
    await Promise.all(this.#writes);
    if (this.#failure !== undefined) {
      const { error } = this.#failure;
      throw new StoreError(`cannot store snapshots: ${describeError(error)}`, { cause: error });
    }
  }

  #write(): void {
    const batch = this.#batch;
    this.#batch = [];
    this.#writes.push(
      // Caught at once: a write that fails while requests go on must not surface as an unhandled rejection.
      this.#store.putSnapshots(batch, this.#expiresAt).catch((error: unknown) => {
        this.#failure ??= { error };
      }),
    );
  }
}
