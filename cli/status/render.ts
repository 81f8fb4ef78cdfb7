/**
 * `shieldwatch status` as a table: its sections one after another, a blank line between them (each section in
 * its own file). Pure: text from the report; colour only when the output is a terminal.
 */
import { palette, useColour } from '../format.ts';
import { renderFilter } from './render-filter.ts';
import { renderIncidents } from './render-incidents.ts';
import { renderNetworks } from './render-networks.ts';
import { renderPending } from './render-pending.ts';
import { renderRules } from './render-rules.ts';
import { renderSilences } from './render-silences.ts';
import type { StatusReport } from './report-types.ts';

/** The sections, in their order. */
const SECTIONS = [renderFilter, renderNetworks, renderRules, renderIncidents, renderSilences, renderPending];

/** `io`: whether the output is a terminal and the environment (`NO_COLOR`), for the colours. */
export function renderText(
  report: StatusReport,
  io: { readonly stdout: { isTTY?: boolean }; readonly env: Readonly<Record<string, string | undefined>> },
): string {
  const colour = palette(useColour(io.stdout, io.env));
  return SECTIONS.map((section) => section(report, colour).join('\n')).join('\n\n');
}
