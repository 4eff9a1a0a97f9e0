/**
 * `Server-Timing` (W3C Server Timing) of an issue answer: where the request's time went inside
 * Timbre, by stage, so a client that sees a slow answer can tell a folio wait from a signing queue
 * from a slow commit or a slow SII (README "Issuing a document"). Browsers show it in their
 * network panel; `npm run bench` reads it to split the tail of its latency by stage.
 *
 *     Server-Timing: folio;dur=4.1, sign;dur=16.4, store;dur=9.2
 */
import type { IssueTimings } from '../issuing/issue-document.ts';

/** The header's value: each stage's milliseconds with one decimal, in the order they ran. */
export function serverTiming(t: IssueTimings): string {
  const stages: [string, number | undefined][] = [
    ['folio', t.folio],
    ['sign', t.sign],
    ['store', t.store],
    ['sii', t.sii],
  ];
  return stages
    .filter((s): s is [string, number] => s[1] !== undefined)
    .map(([name, ms]) => `${name};dur=${ms.toFixed(1)}`)
    .join(', ');
}
