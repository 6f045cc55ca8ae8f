import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { STANDARD_FLOW, WALLET_REFUSALS_PER_ROUND } from '@idv/domain';
import { IdvClient } from '@idv/sdk';
import { TestWallet, createTestIssuer, type TestIssuer, type TestPerson } from '@idv/wallet/testing';
import en from '../../apps/journey/src/app/messages/en.ts';
import { readBarcodes } from '../../packages/engine/src/document/barcodes.ts';
import { screenAudits } from '../helpers/axe.ts';
import { DESKTOP, PHONE, launchChromium } from '../helpers/browser.ts';
import { TEST_DB } from '../helpers/database.ts';
import { ROOT } from '../helpers/processes.ts';
import { startWholeService, type WholeService } from '../helpers/service.ts';

/**
 * The journey's wallet screens in Chromium (docs/journey.md#the-digital-identity-wallet), against
 * the whole service started once (its worker off: the journey is the subject, the decision is the
 * API suites'). The browser has no wallet of its own: on the same-device path the page's
 * `navigator.credentials.get` is answered by the test wallet (@idv/wallet/testing) running in
 * this process, reached through `page.exposeFunction`; on the cross-device path the test plays the
 * wallet on another device, reading the QR code drawn in the page, fetching the request and
 * posting the answer while the page follows; in the sandbox, the page's own button has the
 * service's sandbox test wallet answer. Screenshots of every state at phone and desktop size,
 * each audited by axe, go to artifacts/journey-wallet/ (or WALLET_SHOTS_DIR).
 */

const SHOTS = screenAudits(process.env.WALLET_SHOTS_DIR ?? join(ROOT, 'artifacts', 'journey-wallet'));
const FLOW = 'wallet_first';
const WALLET_ONLY = 'wallet_only';
const PERSON: TestPerson = {
  given_names: 'Corinne',
  surname: 'Berthier',
  birth_date: '1965-12-06',
  nationality: 'FR',
  issuing_country: 'FR',
  document_number: 'X4RTBPFW4',
  expiry_date: '2031-05-01',
};

let service: WholeService;
let client: IdvClient;
let browser: Browser;
let issuer: TestIssuer;
let wallet: TestWallet;

before(async () => {
  service = await startWholeService({ RUN_WORKER: 'false' });
  client = new IdvClient({ baseUrl: service.api, apiKey: service.creds.api_key.secret, signingSecret: service.creds.api_key.signing_secret, maxAttempts: 1 });
  browser = await launchChromium();
  // A flow that offers the wallet, or the document and selfie instead.
  const definition = { ...STANDARD_FLOW, steps: ['consent', 'wallet', 'document', 'face'], wallet: { formats: ['dc+sd-jwt', 'mso_mdoc'], document_fallback: true } };
  const version = await client.request<{ version: number }>('POST', `/v1/flows/${FLOW}/versions`, { definition }, { signed: true });
  await client.request('POST', `/v1/flows/${FLOW}/versions/${version.version}/activate`, undefined, { signed: true });
  // The wallet alone: a presentation ends the journey.
  const walletOnly = { ...STANDARD_FLOW, steps: ['consent', 'wallet'], wallet: { formats: ['dc+sd-jwt', 'mso_mdoc'], document_fallback: false } };
  const only = await client.request<{ version: number }>('POST', `/v1/flows/${WALLET_ONLY}/versions`, { definition: walletOnly }, { signed: true });
  await client.request('POST', `/v1/flows/${WALLET_ONLY}/versions/${only.version}/activate`, undefined, { signed: true });
});

/** The test issuer, trusted by the client (its IACA root for mdoc, its key's certificate for SD-JWT VC), and a wallet holding a PID and an mDL from it. */
async function trustedWallet(): Promise<void> {
  issuer = await createTestIssuer({ name: 'Test PID Provider', country: 'FR' });
  await client.request('POST', '/v1/trust-anchors', { kind: 'iaca', certificate_pem: issuer.iacaPem, label: 'test IACA' }, { signed: true });
  await client.request('POST', '/v1/trust-anchors', { kind: 'sd_jwt_issuer', certificate_pem: issuer.sdJwtIssuerPem, label: 'test PID issuer' }, { signed: true });
  wallet = await TestWallet.create();
  await wallet.addPid(issuer, PERSON);
  await wallet.addMdl(issuer, PERSON);
}

after(async () => {
  await browser?.close();
  await service?.stop();
});

const heading = (page: Page) => page.locator('h1');

/** Screenshots (and axe audits) of the page as it is, at its own size and at the other viewport's. */
async function shoot(page: Page, name: string, own: 'phone' | 'desktop'): Promise<void> {
  const sizes = { phone: PHONE.viewport, desktop: DESKTOP.viewport };
  const other = own === 'phone' ? 'desktop' : 'phone';
  await SHOTS.capture(page, name, own);
  await page.setViewportSize(sizes[other]);
  await SHOTS.capture(page, name, other);
  await page.setViewportSize(sizes[own]);
}

/** A new case of the wallet flow, its journey opened on a page at the wallet step. */
async function journey(context: BrowserContext, flow = FLOW): Promise<{ page: Page; token: string }> {
  const kase = await client.createCase({ flow_name: flow, country: 'FR' });
  const session = await client.createSession({ case_id: kase.id, locale: 'en' });
  const page = await context.newPage();
  await page.goto(session.url);
  await page.getByRole('button', { name: en.consent_accept }).click();
  await heading(page).filter({ hasText: en.wallet_title }).waitFor();
  return { page, token: new URL(session.url).hash.slice(1) };
}

/**
 * A browser with a wallet: `window.DigitalCredential` defined and `navigator.credentials.get`
 * answered by the test wallet in this process (`cancel`: the person closes the wallet's sheet).
 */
async function browserWithWallet(context: BrowserContext, answer: 'share' | 'cancel'): Promise<string[]> {
  const asked: string[] = [];
  await context.exposeFunction('__testWallet', async (requestJwt: string, origin: string) => {
    asked.push(origin);
    return (await wallet.respond({ requestJwt, mode: 'dc_api', origin })).response;
  });
  await context.addInitScript((mode) => {
    const w = window as unknown as Record<string, unknown> & { __testWallet(request: string, origin: string): Promise<string> };
    // An anonymous class: a named one gets tsx's __name helper, which the page does not have.
    w.DigitalCredential = class {
      static userAgentAllowsProtocol(protocol: string) {
        return protocol === 'openid4vp-v1-signed';
      }
    };
    navigator.credentials.get = (async (options: { mediation?: string; digital?: { requests: { protocol: string; data: { request: string } }[] } }) => {
      const request = options.digital?.requests?.[0];
      if (!request || options.mediation !== 'required') throw new DOMException('not a digital credential request', 'NotSupportedError');
      if (mode === 'cancel') throw new DOMException('The user closed the wallet.', 'NotAllowedError');
      const response = await w.__testWallet(request.data.request, location.origin);
      return { protocol: request.protocol, data: { response } };
    }) as unknown as CredentialsContainer['get'];
  }, answer);
  return asked;
}

/** A browser without the Digital Credentials API (Chromium has it: taken away here). */
const browserWithoutWallet = (context: BrowserContext) =>
  context.addInitScript(() => {
    delete (window as unknown as Record<string, unknown>).DigitalCredential;
  });

/** The test as the wallet on another device: reads the QR code, fetches the request, posts its answer. */
async function scanAndAnswer(page: Page, w: TestWallet): Promise<{ link: string; status: number }> {
  const [read] = await readBarcodes(await page.getByRole('img', { name: en.wallet_qr_label }).screenshot());
  assert.equal(read?.format, 'QRCode');
  const link = new URL(read.text);
  assert.equal(link.protocol, 'openid4vp:');
  const requestUri = link.searchParams.get('request_uri')!;
  assert.ok(link.searchParams.get('client_id')?.startsWith('x509_san_dns:'), 'the verifier names itself by its certificate');
  const fetched = await fetch(requestUri);
  assert.equal(fetched.status, 200);
  assert.match(fetched.headers.get('content-type') ?? '', /application\/oauth-authz-req\+jwt/);
  const requestJwt = await fetched.text();
  const claims = JSON.parse(Buffer.from(requestJwt.split('.')[1], 'base64url').toString()) as { response_uri: string; response_mode: string };
  assert.equal(claims.response_mode, 'direct_post.jwt');
  const { response } = await w.respond({ requestJwt, mode: 'cross_device' });
  const posted = await fetch(claims.response_uri, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ response }) });
  return { link: read.text, status: posted.status };
}

describe(`the journey's wallet screens in Chromium (${TEST_DB})`, () => {
  test('the offer without the API on a computer, and the document instead: the document choice ends the wallet step for the service too', async () => {
    const context = await browser.newContext(DESKTOP);
    try {
      await browserWithoutWallet(context);
      const { page, token } = await journey(context);
      await shoot(page, 'offer-other-device', 'desktop');
      assert.equal(await page.getByRole('button', { name: en.wallet_browser }).count(), 0, 'no browser wallet offered without the API');
      await page.getByRole('button', { name: en.wallet_use_document }).click();
      await heading(page).filter({ hasText: en.document_title }).waitFor();
      await shoot(page, 'document-instead', 'desktop');
      await page.getByRole('radio', { name: en.doc_passport }).check();
      await page.getByRole('button', { name: en.continue, exact: true }).click();
      await heading(page).filter({ hasText: en.handoff_title }).or(heading(page).filter({ hasText: en.piece_document_front })).waitFor();
      const state = (await (await fetch(`${service.api}/v1/sessions/current`, { headers: { authorization: `Session ${token}` } })).json()) as { step: string; document: { chosen: unknown } };
      assert.equal(state.step, 'document', 'past the wallet: the document photo is next');
      await page.reload();
      await heading(page).filter({ hasNotText: en.wallet_title }).waitFor();
      assert.notEqual(await heading(page).textContent(), en.wallet_title, 'a reload does not offer the wallet again');
    } finally {
      await context.close();
    }
  });

  test('the sandbox test wallet: its labelled button presents through the service, the page follows it to the end of the journey', async () => {
    const context = await browser.newContext(PHONE);
    try {
      await browserWithoutWallet(context);
      const { page, token } = await journey(context, WALLET_ONLY);
      await page.getByText(en.wallet_sandbox_note).waitFor();
      await shoot(page, 'offer-sandbox-wallet', 'phone');
      await page.getByRole('button', { name: en.wallet_sandbox_present }).click();
      await heading(page).filter({ hasText: en.wallet_accepted_title }).waitFor();
      await shoot(page, 'sandbox-wallet-accepted', 'phone');
      await page.getByRole('button', { name: en.continue }).click();
      await heading(page).filter({ hasText: en.completed_title }).waitFor();
      await shoot(page, 'sandbox-wallet-done', 'phone');
      const state = (await (await fetch(`${service.api}/v1/sessions/current`, { headers: { authorization: `Session ${token}` } })).json()) as { status: string; wallet: { status: string } };
      assert.deepEqual([state.status, state.wallet.status], ['completed', 'accepted'], 'the journey is finished on the sandbox wallet’s accepted presentation');
    } finally {
      await context.close();
    }
  });

  describe('with the test wallet (@idv/wallet/testing)', () => {
    before(trustedWallet);

    test('same device: the browser asks the test wallet through the Digital Credentials API, the answer is posted and accepted, and the journey goes on to the selfie', async () => {
      const context = await browser.newContext(PHONE);
      try {
        const origins = await browserWithWallet(context, 'share');
        const { page, token } = await journey(context);
        await shoot(page, 'offer-same-device', 'phone');
        await page.getByRole('button', { name: en.wallet_open }).click();
        await heading(page).filter({ hasText: en.wallet_accepted_title }).waitFor();
        assert.deepEqual(origins, [new URL(service.journeyUrl).origin], 'the wallet was asked once, for the journey\'s origin');
        await shoot(page, 'accepted', 'phone');
        await page.getByRole('button', { name: en.continue }).click();
        // The presentation stands for the document: the selfie the flow asks comes next.
        await heading(page).filter({ hasText: en.face_title }).waitFor();
        const state = (await (await fetch(`${service.api}/v1/sessions/current`, { headers: { authorization: `Session ${token}` } })).json()) as { wallet: { status: string } };
        assert.equal(state.wallet.status, 'accepted', 'the service counts the wallet step as answered');
      } finally {
        await context.close();
      }
    });

    test('same device, the person closes the wallet: nothing shared, and the ways on (again, another device, the document)', async () => {
      const context = await browser.newContext(PHONE);
      try {
        await browserWithWallet(context, 'cancel');
        const { page } = await journey(context);
        await page.getByRole('button', { name: en.wallet_open }).click();
        await heading(page).filter({ hasText: en.wallet_cancelled_title }).waitFor();
        await shoot(page, 'cancelled', 'phone');
        await page.getByRole('button', { name: en.wallet_use_document }).click();
        await heading(page).filter({ hasText: en.document_title }).waitFor();
      } finally {
        await context.close();
      }
    });

    test('another device: the QR code holds the request by reference; the test as the wallet fetches and answers it while the page follows to the end', async () => {
      const context = await browser.newContext(DESKTOP);
      try {
        await browserWithoutWallet(context);
        const { page } = await journey(context);
        await page.getByRole('button', { name: en.wallet_continue }).click();
        await page.getByText(en.wallet_waiting).waitFor();
        await shoot(page, 'waiting', 'desktop');
        const { status } = await scanAndAnswer(page, wallet);
        assert.equal(status, 200);
        await heading(page).filter({ hasText: en.wallet_accepted_title }).waitFor();
        assert.equal(await page.locator('[role="status"]').textContent(), en.wallet_accepted_body);
        await page.getByRole('button', { name: en.continue }).click();
        await heading(page).filter({ hasText: en.face_title }).waitFor();
      } finally {
        await context.close();
      }
    });

    /** A wallet holding a PID of an issuer the client does not trust. */
    const strangersWallet = async (): Promise<TestWallet> => {
      const w = await TestWallet.create();
      await w.addPid(await createTestIssuer({ name: 'Unknown Issuer', country: 'FR' }), PERSON);
      return w;
    };

    test('a phone without the API: the wallet link and the QR code; a credential from an untrusted issuer is refused, in words', async () => {
      const context = await browser.newContext(PHONE);
      try {
        await browserWithoutWallet(context);
        const stranger = await strangersWallet();
        const { page } = await journey(context);
        await page.getByRole('button', { name: en.wallet_continue }).click();
        const link = page.getByRole('link', { name: en.wallet_link });
        await link.waitFor();
        await shoot(page, 'waiting-phone-link', 'phone');
        // Read before answering: the page moves on as soon as it hears the refusal.
        const href = await link.getAttribute('href');
        const answered = await scanAndAnswer(page, stranger);
        assert.equal(href, answered.link, 'the link is the QR code\'s request');
        assert.equal(answered.status, 400, 'the wallet is told its answer was refused');
        await heading(page).filter({ hasText: en.wallet_refused_title }).waitFor();
        await page.getByText(en.wallet_refused_issuer_untrusted).waitFor();
        await shoot(page, 'refused', 'phone');
        // Another try with a trusted credential is a new request.
        await page.getByRole('button', { name: en.retry }).click();
        await heading(page).filter({ hasText: en.wallet_title }).waitFor();
      } finally {
        await context.close();
      }
    });

    test('after the last refusal the round allows, the screen invites no other try: the reason, that the tries are over, and Continue', async () => {
      const context = await browser.newContext(PHONE);
      try {
        await browserWithoutWallet(context);
        const stranger = await strangersWallet();
        const { page } = await journey(context);
        for (let attempt = 1; attempt <= WALLET_REFUSALS_PER_ROUND; attempt++) {
          if (attempt > 1) await page.getByRole('button', { name: en.retry }).click();
          await page.getByRole('button', { name: en.wallet_continue }).click();
          await page.getByRole('img', { name: en.wallet_qr_label }).waitFor();
          assert.equal((await scanAndAnswer(page, stranger)).status, 400);
          await heading(page).filter({ hasText: en.wallet_refused_title }).waitFor();
          if (attempt < WALLET_REFUSALS_PER_ROUND) await page.getByRole('button', { name: en.retry }).waitFor();
        }
        await page.getByText(en.wallet_tries_over).waitFor();
        await shoot(page, 'refused-last', 'phone');
        const text = (await page.locator('main').textContent()) ?? '';
        assert.doesNotMatch(text, /try again|identity document/i, 'no other try offered in words');
        assert.equal(await page.getByRole('button', { name: en.retry }).count(), 0, 'nor as a button');
        assert.equal(await page.getByRole('button', { name: en.wallet_use_document }).count(), 0, 'the document is over too');
        await page.getByRole('button', { name: en.continue }).click();
        await heading(page).filter({ hasNotText: en.wallet_refused_title }).waitFor();
      } finally {
        await context.close();
      }
    });
  });

  test('every wallet screen passed the axe audit (no serious or critical violation)', () => {
    assert.ok(Object.keys(SHOTS.audits).length >= 14, Object.keys(SHOTS.audits).join(', '));
    const failing = Object.entries(SHOTS.audits).filter(([, v]) => v.length);
    assert.deepEqual(failing, []);
  });
});
