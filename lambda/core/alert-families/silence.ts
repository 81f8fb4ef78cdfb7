/**
 * The `silence` family (docs/silences.md): at a silence's end, the announcement of a change it held back that
 * still holds. The texts are in `silence-alert-text.ts`; it opens (or keeps) the incident the silence held
 * back, when there is one.
 */
import { silenceEmailLines, silenceSms, silenceSubject } from '../silence-alert-text.ts';
import type { SilenceAlertRecord } from '../types.ts';
import {
  type AlertFamily,
  detailLines,
  expectedSeverityLines,
  incidentFromEvent,
  NOTHING,
  recordSeverity,
} from './family.ts';

/** `silence.still_holding`. */
export const SILENCE_FAMILY: AlertFamily<SilenceAlertRecord> = {
  subject: silenceSubject,
  sms: (alert, name) => silenceSms(alert, name),
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
};
