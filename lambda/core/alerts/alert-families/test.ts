/**
 * The `test` family: `shieldwatch test-alert`'s delivery check, its words fixed (`alert-events.ts`). An event
 * this version does not know (a newer writer, a corrupt record) is rendered the same plain way: its name, its
 * detail.
 */
import type { TestAlertRecord } from '../../types.ts';
import {
  type AlertFamily,
  detailLines,
  expectedSeverityLines,
  incidentFromEvent,
  NOTHING,
  plainSms,
  plainSubject,
  recordSeverity,
} from './family.ts';

/** `monitor.test`, and any event this version does not know. */
export const TEST_FAMILY: AlertFamily<TestAlertRecord> = {
  subject: plainSubject,
  sms: (alert, name, when) => plainSms(alert, name, when, false),
  emailLines: expectedSeverityLines,
  emailTail: detailLines,
  chatLines: NOTHING.lines,
  chatTail: NOTHING.lines,
  attributes: NOTHING.fields,
  action: () => undefined,
  level: () => 'info',
  severity: recordSeverity,
  derivedIncident: (alert, action) => incidentFromEvent(alert, action),
  documentFields: NOTHING.fields,
};
