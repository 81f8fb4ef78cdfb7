/**
 * The `silence` family (docs/silences.md): at a silence's end, the announcement of a change it held back that
 * still holds. The texts are in `silence-alert-text.ts`; it opens (or keeps) the incident the silence held
 * back, when there is one.
 */

import type { SilenceAlertRecord } from '../../types.ts';
import { type HeldFamilyOf, silenceEmailLines, silenceSms, silenceSubject } from '../silence-alert-text.ts';
import {
  type AlertFamily,
  detailLines,
  expectedSeverityLines,
  incidentFromEvent,
  NOTHING,
  recordSeverity,
} from './family.ts';

/**
 * `silence.still_holding`, naming what still holds as the held event's family says (`familyOf`, passed in by the
 * registry that holds this family: no import cycle).
 */
export const silenceFamily = (familyOf: HeldFamilyOf): AlertFamily<SilenceAlertRecord> => ({
  subject: (alert, prefix) => silenceSubject(alert, prefix, familyOf),
  sms: (alert, name) => silenceSms(alert, name, familyOf),
  emailLines: (alert, field) => [...silenceEmailLines(alert, field), ...expectedSeverityLines(alert, field)],
  emailTail: detailLines,
  chatLines: NOTHING.lines,
  chatTail: NOTHING.lines,
  attributes: NOTHING.fields,
  action: (alert) => (typeof alert.incident === 'string' ? 'trigger' : undefined),
  level: () => 'info',
  severity: recordSeverity,
  derivedIncident: (alert, action) => incidentFromEvent(alert, action),
  documentFields: NOTHING.fields,
});
