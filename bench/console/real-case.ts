import { IdvClient } from '@idv/sdk';
import { IMAGES, fixture } from '../../tests/helpers/journey.ts';

/** The photos the person sends: an identity card (two sides), a selfie and the standard flow's two head turns. */
const PIECES: [kind: string, path: string, contentType: string][] = [
  ['document_front', IMAGES.idFront, 'image/jpeg'],
  ['document_back', IMAGES.idBack, 'image/png'],
  ['selfie', IMAGES.selfie, 'image/jpeg'],
  ['liveness_turn_left', IMAGES.turnLeft, 'image/jpeg'],
  ['liveness_turn_right', IMAGES.turnRight, 'image/jpeg'],
];

/** How many document sides the case screen shows for this case (the images it must have drawn). */
export const DOCUMENT_SIDES = PIECES.filter(([kind]) => kind.startsWith('document_')).length;

/**
 * One real case sent to review the way a person does it, over real HTTP: created by the API
 * with the demo key, then the journey routes with the session token (the sandbox's given names
 * "Sandbox Review", docs/sandbox.md), real fixture photos stored sealed in the blob store, the
 * finish; the service's own checks runner then runs every check and opens the review task.
 * Resolves with the case id once the case is in review.
 */
export async function caseInReviewThroughJourney(
  apiBase: string,
  key: { secret: string; signingSecret: string },
  /** Called when the finish is answered (bench:checks times the checks from there). */
  onFinished: () => void = () => {},
): Promise<string> {
  const client = new IdvClient({ baseUrl: apiBase, apiKey: key.secret, signingSecret: key.signingSecret });
  const { id } = await client.createCase({ flow_name: 'standard', country: 'FR', external_ref: 'bench-console' });
  const { url } = await client.createSession({ case_id: id, locale: 'en' });
  const token = /#([A-Za-z0-9_-]{43})$/.exec(url)?.[1];
  if (!token) throw new Error('the journey link has no token');
  const call = async (method: string, path: string, body?: Buffer | string, contentType?: string) => {
    const headers: Record<string, string> = { authorization: `Session ${token}` };
    if (contentType) headers['content-type'] = contentType;
    const res = await fetch(`${apiBase}/v1/sessions/current${path}`, { method, headers, body: typeof body === 'string' || body === undefined ? body : new Uint8Array(body) });
    if (res.status !== 200) throw new Error(`journey ${method} ${path}: ${res.status} ${await res.text()}`);
  };
  const steps: [string, unknown][] = [
    ['/consent', { accepted: true }],
    ['/applicant', { given_names: 'Sandbox Review', surname: 'Hopper', birth_date: '1906-12-09' }],
    ['/questionnaire', { answers: { source_of_funds: 'salary', politically_exposed: 'no' } }],
    ['/document', { country: 'FR', type: 'id_card' }],
  ];
  for (const [path, body] of steps) await call('POST', path, JSON.stringify(body), 'application/json');
  for (const [kind, path, type] of PIECES) await call('PUT', `/pieces/${kind}`, fixture(path), type);
  await call('POST', '/finish');
  onFinished();

  // The checks run in the service's worker threads (models loaded on first use): minutes on a busy machine.
  const until = Date.now() + 10 * 60_000;
  for (;;) {
    const kase = await client.getCase(id);
    if (kase.state === 'in_review') return id;
    if (kase.status === 'decided' || kase.state === 'resubmission_requested') throw new Error(`the sandbox case was not sent to review: ${kase.state}`);
    if (Date.now() > until) throw new Error(`the case is still ${kase.state} after 10 minutes`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
