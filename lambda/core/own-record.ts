/**
 * Reading records keyed by configuration text. Rule names, network ids and event names come from
 * configuration or storage: `__proto__`, `constructor` or `toString` must read as any other key, never as
 * something inherited from Object.prototype. Pure.
 */

/** `record[key]` when it is the record's own property (never something inherited from Object.prototype). */
export function own<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}
