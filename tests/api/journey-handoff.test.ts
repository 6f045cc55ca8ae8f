import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq, sql } from 'drizzle-orm';
import { queryRows, schema } from '@idv/db';
import { JOURNEY_URL, errorOf } from '../helpers/app.ts';
import { otherClient } from '../helpers/tenants.ts';
import { IMAGES, allowStills, fillStandardSteps, fixture, journey, newSession, openCase, startJourneyApp, type JourneyTestApp } from '../helpers/journey.ts';

/**
 * The desktop-to-phone handoff's routes (docs/journey.md#continuing-on-a-phone) on the real app
 * and database: the desktop asks for a code with its session token and follows it; the phone opens
 * the code once and gets a session of its own for the same case.
 */

let t: JourneyTestApp;
before(async () => {
  t = await startJourneyApp();
  // The handoff is this file's subject: the phone sends stills, in a flow that takes them.
  await allowStills(t);
});
after(() => t.close());

const MINUTE = 60_000;
const CODE = /^[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}$/;

const createHandoff = (token: string | null, headers: Record<string, string> = {}) => journey(t, 'POST', '/handoffs', token, { headers });
const follow = (token: string, id: string) => journey(t, 'GET', `/handoffs/${id}`, token);
const openCode = (code: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: '/v1/sessions/handoff', payload: JSON.stringify({ code }), headers: { 'content-type': 'application/json', ...headers } });
const tokenOf = (url: string) => {
  const m = /^http:\/\/journey\.test\/#([A-Za-z0-9_-]{43})$/.exec(url);
  assert.ok(m, `${url} is a journey link`);
  return m[1];
};
const journalOf = async (caseId: string) => t.database.db.select().from(schema.caseJournal).where(eq(schema.caseJournal.caseId, caseId));

/** A case at the document step on the desktop (consent, entered data and answers done there). */
async function desktopAtDocument(): Promise<{ caseId: string; desktop: string }> {
  const caseId = await openCase(t);
  const desktop = await newSession(t, caseId);
  await fillStandardSteps(t, desktop);
  return { caseId, desktop };
}

async function handoff(desktop: string): Promise<{ id: string; code: string; url: string }> {
  const res = await createHandoff(desktop);
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

async function open(code: string): Promise<string> {
  const res = await openCode(code);
  assert.equal(res.statusCode, 201, res.body);
  return tokenOf(res.json().url);
}

describe('a handoff from the desktop to a phone', () => {
  test('the desktop gets a short code and link; the phone opens it once into a session of its own; the desktop follows the step and the end', async () => {
    const { caseId, desktop } = await desktopAtDocument();
    const res = await createHandoff(desktop);
    assert.equal(res.statusCode, 201, res.body);
    const created = res.json();
    assert.deepEqual(Object.keys(created).sort(), ['code', 'expires_at', 'id', 'journey', 'object', 'opened_at', 'status', 'url']);
    assert.match(created.id, /^hof_[0-9a-z]{26}$/);
    assert.match(created.code, CODE);
    assert.equal(created.url, `${JOURNEY_URL}/p/${created.code}`, 'the short link is the code on the journey origin');
    assert.equal(created.url.includes(desktop), false, 'the desktop token is not in the link');
    assert.equal(created.status, 'waiting');
    assert.equal(created.opened_at, null);
    assert.deepEqual(created.journey, { status: 'open', step: 'document' });
    assert.equal(Date.parse(created.expires_at) - t.clock.now().getTime(), 10 * MINUTE, 'the code opens for ten minutes');

    // Stored hashed: the code appears in no column of any table.
    const rows = await queryRows<{ r: string }>(t.database.db, sql`SELECT row_to_json(h)::text AS r FROM handoffs h`);
    assert.ok(rows.some((r) => r.r.includes(created.id)));
    assert.equal(rows.some((r) => r.r.includes(created.code) || r.r.includes(created.code.replace('-', ''))), false);

    // Typed on the phone in lower case, without the hyphen, an O for a zero: the same code.
    const typed = created.code.replace('-', '').toLowerCase().replace(/0/g, 'o');
    const opened = await openCode(typed, { origin: JOURNEY_URL });
    assert.equal(opened.statusCode, 201, opened.body);
    assert.equal(opened.headers['access-control-allow-origin'], JOURNEY_URL, 'the journey app may read the answer');
    assert.deepEqual(Object.keys(opened.json()).sort(), ['expires_at', 'object', 'url']);
    const phone = tokenOf(opened.json().url);
    assert.notEqual(phone, desktop);
    assert.equal(Date.parse(opened.json().expires_at) - t.clock.now().getTime(), 15 * MINUTE, 'the phone session lives fifteen minutes');

    // Opened once only.
    const again = await openCode(created.code);
    assert.equal(again.statusCode, 401);
    assert.equal(errorOf(again).code, 'handoff_code_expired');

    // The phone resumes where the desktop was: the same case, at the document step.
    const state = await journey(t, 'GET', '', phone);
    assert.equal(state.statusCode, 200);
    assert.equal(state.json().step, 'document');
    assert.equal(state.json().consent.given, true);

    let followed = await follow(desktop, created.id);
    assert.equal(followed.statusCode, 200, followed.body);
    assert.deepEqual(Object.keys(followed.json()).sort(), ['expires_at', 'id', 'journey', 'object', 'opened_at', 'status']);
    assert.equal(followed.json().status, 'opened');
    assert.equal(followed.json().opened_at, t.clock.now().toISOString());
    assert.deepEqual(followed.json().journey, { status: 'open', step: 'document' });

    // The phone captures; the desktop sees the steps move, then the end.
    assert.equal((await journey(t, 'POST', '/document', phone, { body: { country: 'FR', type: 'passport' } })).statusCode, 200);
    assert.equal((await journey(t, 'PUT', '/pieces/document_front', phone, { bytes: fixture(IMAGES.passport) })).statusCode, 200);
    assert.deepEqual((await follow(desktop, created.id)).json().journey, { status: 'open', step: 'face' });
    for (const [kind, image] of [['selfie', IMAGES.selfie], ['liveness_turn_left', IMAGES.turnLeft], ['liveness_turn_right', IMAGES.turnRight]] as const) {
      assert.equal((await journey(t, 'PUT', `/pieces/${kind}`, phone, { bytes: fixture(image) })).statusCode, 200, kind);
    }
    assert.deepEqual((await follow(desktop, created.id)).json().journey, { status: 'open', step: 'check' });
    assert.equal((await journey(t, 'POST', '/finish', phone)).statusCode, 200);
    followed = await follow(desktop, created.id);
    assert.deepEqual(followed.json().journey, { status: 'completed', step: null });
    assert.equal(JSON.stringify(followed.json()).includes('Hopper'), false, 'no personal data');

    const journal = await journalOf(caseId);
    const made = journal.find((j) => j.action === 'handoff.created');
    const opening = journal.find((j) => j.action === 'handoff.opened');
    const desktopSession = journal.find((j) => j.action === 'session.created')!.detail.session_id as string;
    assert.deepEqual(made?.detail, { handoff_id: created.id, session_id: desktopSession });
    assert.equal(made?.actor, 'person');
    assert.equal(opening?.actor, 'person');
    assert.equal(opening?.detail.handoff_id, created.id);
    assert.match(String(opening?.detail.session_id), /^ses_/);
    assert.notEqual(opening?.detail.session_id, desktopSession);
    // The phone's session is a session of the case, readable by the client like any other.
    const session = await t.request('GET', `/v1/sessions/${opening?.detail.session_id}`);
    assert.equal(session.statusCode, 200);
    assert.equal(session.json().case_id, caseId);
  });

  test('a code expires after ten minutes; a newer code replaces the one not opened; the phone session ends after fifteen minutes', async () => {
    const { desktop } = await desktopAtDocument();
    const first = await handoff(desktop);
    const second = await handoff(desktop);
    const replaced = await openCode(first.code);
    assert.equal(replaced.statusCode, 401);
    assert.equal(errorOf(replaced).code, 'handoff_code_expired');
    assert.equal((await follow(desktop, first.id)).json().status, 'expired');
    assert.equal((await follow(desktop, second.id)).json().status, 'waiting');

    t.clock.advance(10 * MINUTE);
    assert.equal((await follow(desktop, second.id)).json().status, 'expired');
    assert.equal(errorOf(await openCode(second.code)).code, 'handoff_code_expired');

    const third = await handoff(desktop);
    const phone = await open(third.code);
    assert.equal((await follow(desktop, third.id)).json().status, 'opened');
    t.clock.advance(15 * MINUTE);
    assert.equal((await follow(desktop, third.id)).json().status, 'expired', 'the phone session ended');
    assert.equal(errorOf(await journey(t, 'GET', '', phone)).code, 'session_expired');

    // The desktop's own hour ends too: it still reads its handoff (a step, no data), and asks for no new code.
    t.clock.advance(35 * MINUTE);
    assert.equal((await follow(desktop, third.id)).statusCode, 200);
    assert.equal(errorOf(await createHandoff(desktop)).code, 'session_expired');
  });

  test('nothing outlives the desktop link: a code made before it expires neither opens after it, nor gives a phone longer', async () => {
    const { desktop } = await desktopAtDocument();
    const desktopEnds = Date.parse((await journey(t, 'GET', '', desktop)).json().expires_at);
    // Five minutes before the link ends: the code ends with the link, not ten minutes later.
    t.clock.advance(desktopEnds - t.clock.now().getTime() - 5 * MINUTE);
    const late = await handoff(desktop);
    assert.equal(Date.parse((await follow(desktop, late.id)).json().expires_at), desktopEnds);
    const phone = await openCode(late.code);
    assert.equal(phone.statusCode, 201, phone.body);
    assert.ok(Date.parse(phone.json().expires_at) <= desktopEnds, 'the phone session ends with the desktop link');

    const { desktop: other } = await desktopAtDocument();
    const otherEnds = Date.parse((await journey(t, 'GET', '', other)).json().expires_at);
    t.clock.advance(otherEnds - t.clock.now().getTime() - 2 * MINUTE);
    const code = await handoff(other);
    t.clock.advance(3 * MINUTE);
    const refused = await openCode(code.code);
    assert.equal(refused.statusCode, 401, refused.body);
    assert.equal(errorOf(refused).code, 'handoff_code_expired');
  });

  test('at most five codes per journey link', async () => {
    const { desktop } = await desktopAtDocument();
    for (let i = 0; i < 5; i++) await handoff(desktop);
    const refused = await createHandoff(desktop);
    assert.equal(refused.statusCode, 409);
    assert.equal(errorOf(refused).code, 'handoff_limit_reached');
  });

  test('a closed journey: no new code, and a code not opened yet no longer opens it', async () => {
    const caseId = await openCase(t, { flow_name: 'standard', country: 'FR' });
    const desktop = await newSession(t, caseId);
    const code = (await handoff(desktop)).code;
    assert.equal((await journey(t, 'POST', '/consent', desktop, { body: { accepted: false } })).statusCode, 200);
    const refused = await createHandoff(desktop);
    assert.equal(refused.statusCode, 409);
    assert.equal(errorOf(refused).code, 'journey_closed');
    const late = await openCode(code);
    assert.equal(late.statusCode, 409);
    assert.equal(errorOf(late).code, 'journey_closed');
    assert.equal((await journalOf(caseId)).some((j) => j.action === 'handoff.opened'), false, 'nothing opened');
  });
});

describe('authorisation of the handoff routes', () => {
  test('the desktop routes take the session token only; a handoff is followed by its own session only', async () => {
    const { desktop } = await desktopAtDocument();
    const created = await handoff(desktop);

    assert.equal(errorOf(await createHandoff(null)).code, 'session_token_missing');
    assert.equal(errorOf(await journey(t, 'GET', `/handoffs/${created.id}`, null)).code, 'session_token_missing');
    // An API key opens no journey route.
    const keyed = await createHandoff(null, { authorization: `Bearer ${t.demoKey.secret}` });
    assert.equal(keyed.statusCode, 401);
    assert.equal(errorOf(keyed).code, 'session_token_invalid');
    assert.equal(errorOf(await createHandoff('A'.repeat(43))).code, 'session_token_invalid');

    // Another session of the same case, the phone's session, another client's session: not found.
    const sameCase = await newSession(t, (await t.database.db.select().from(schema.handoffs).where(eq(schema.handoffs.id, created.id)))[0].caseId);
    const phone = await open(created.code);
    const other = await otherClient(t);
    const foreign = await newSession(t, await openCase(t, { flow_name: 'standard', country: 'FR' }, other.key), 'en', other.key);
    for (const token of [sameCase, phone, foreign]) {
      const res = await follow(token, created.id);
      assert.equal(res.statusCode, 404, res.body);
      assert.equal(errorOf(res).code, 'resource_not_found');
    }
    assert.equal((await follow(desktop, 'hof_00000000000000000000000000')).statusCode, 404);
  });

  test('opening: unknown and malformed codes are 401 handoff_code_invalid; the body is validated; CORS answers the journey origin only', async () => {
    for (const code of ['ZZZZZ-ZZZZZ', 'short', 'UUUUU-UUUUU', '¡¡¡¡¡-¡¡¡¡¡']) {
      const res = await openCode(code);
      assert.equal(res.statusCode, 401, code);
      assert.equal(errorOf(res).code, 'handoff_code_invalid', code);
    }
    assert.equal(errorOf(await openCode('x'.repeat(33))).code, 'parameter_invalid');
    assert.equal(errorOf(await openCode(12345)).code, 'parameter_invalid');
    const extra = await t.app.inject({ method: 'POST', url: '/v1/sessions/handoff', payload: { code: 'ZZZZZ-ZZZZZ', token: 'x' } });
    assert.equal(errorOf(extra).code, 'parameter_unknown');

    const preflight = (origin: string) =>
      t.app.inject({ method: 'OPTIONS', url: '/v1/sessions/handoff', headers: { origin, 'access-control-request-method': 'POST' } });
    assert.equal((await preflight(JOURNEY_URL)).headers['access-control-allow-origin'], JOURNEY_URL);
    assert.equal((await preflight('https://evil.example')).headers['access-control-allow-origin'], undefined);
  });
});
