import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withAddresses } from '../../apps/docs/src/addresses.ts';
import { extractSamples, type SampleStep } from '../../apps/docs/src/samples.ts';
import { markdownSources, readSource } from '../../apps/docs/src/sources.ts';
import { allowStillsOver, completeStandardJourney } from '../helpers/journey.ts';
import { ROOT, childEnv, freePort, stop, type Proc } from '../helpers/processes.ts';
import { startWholeService, waitUntil, type WholeService } from '../helpers/service.ts';

/**
 * Every executed sample of the site (fenced blocks marked `exec`, docs/docs-site.md), page by
 * page in reading order, against one service started as `npm start` starts it: shell blocks in
 * bash one after the other like a reader's terminal, TypeScript blocks saved under their name and
 * run with tsx, the journey completed where the page asks the reader to, background servers
 * waited for. A sample that fails fails the test, with its output.
 */

let service: WholeService;
let work: string;
let receiverPort: number;

before(async () => {
  service = await startWholeService();
  // The test stands in for the person's browser with stills (completeStandardJourney), so the
  // service's sandbox `standard` flow accepts them: docs/flows.md#the-live-sequence-or-stills.
  await allowStillsOver(service.api, service.creds.api_key);
  receiverPort = await freePort();
  // Inside the repository, so that the samples' `@idv/sdk` resolves as it does for a reader in the clone.
  work = join(ROOT, '.tmp', `docs-samples-${process.pid}`);
  mkdirSync(work, { recursive: true });
  symlinkSync(service.dataDir, join(work, '.data'));
});
after(async () => {
  await service?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

/**
 * The addresses of a default start, as the pages write them, replaced by the started service's:
 * the replacement its docs site makes on the pages it serves.
 */
function localised(code: string): string {
  return withAddresses(code, { api: service.api, journey: service.journeyUrl, console: service.consoleUrl, docs: service.docsUrl });
}

interface Run {
  proc: Proc;
  exited: Promise<number | string>;
}

function run(command: string, args: string[]): Run {
  // The quick start's receiver listens at RECEIVER_URL, the address the reader chooses.
  const child = spawn(command, args, { cwd: work, env: childEnv({ RECEIVER_URL: `http://127.0.0.1:${receiverPort}` }), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return { proc: { child, stdout: () => out, stderr: () => err, exited }, exited };
}

async function finished(r: Run, what: string, ms: number): Promise<string> {
  const timer = setTimeout(() => r.proc.child.kill('SIGKILL'), ms);
  const code = await r.exited;
  clearTimeout(timer);
  assert.equal(code, 0, `${what} failed (${code}):\n${r.proc.stdout()}\n${r.proc.stderr()}`);
  return r.proc.stdout();
}

/** Runs the steps of one page; returns what ran, for the closing checks. */
async function runPage(repoPath: string, steps: SampleStep[]): Promise<string[]> {
  const state = join(work, `${repoPath.replace(/\W/g, '_')}.env`);
  writeFileSync(state, '');
  const background: Run[] = [];
  let output = '';
  const ran: string[] = [];
  try {
    for (const step of steps) {
      const where = `${repoPath}:${step.line}`;
      if (step.kind === 'shell') {
        // The exports of earlier blocks, the block, then its exports for the next ones.
        const script = `set -euo pipefail\nsource ${JSON.stringify(state)}\n${localised(step.code)}\nexport -p > ${JSON.stringify(state)}\n`;
        output += await finished(run('bash', ['-c', script]), `the shell block at ${where}`, 60_000);
      } else if (step.kind === 'script') {
        const file = step.file ?? `sample-${step.line}.ts`;
        writeFileSync(join(work, file), localised(step.code));
        const r = run(process.execPath, ['--import', 'tsx', file]);
        if (step.background) {
          background.push(r);
          await waitUntil(`the first line of ${file} (${where})`, async () => {
            const code = r.proc.child.exitCode;
            if (code !== null) assert.fail(`${file} (${where}) ended (${code}):\n${r.proc.stdout()}\n${r.proc.stderr()}`);
            return r.proc.stdout().includes('\n');
          }, 60_000);
        } else output += await finished(r, `${file} (${where})`, 90_000);
      } else if (step.name === 'journey') {
        const links = [...output.matchAll(/https?:\/\/\S+\/#([A-Za-z0-9_-]{43})/g)];
        assert.ok(links.length > 0, `${where}: the samples before it printed no journey link`);
        await completeStandardJourney(service.api, links[links.length - 1][1]);
      } else if (step.name === 'wait-output') {
        const text = step.arg;
        assert.ok(text, `${where}: wait-output names no text`);
        await waitUntil(`"${text}" from a background sample (${where})`, () => background.some((b) => b.proc.stdout().includes(text)), 120_000, service.proc);
      } else assert.fail(`${where}: unknown directive ${step.name}`);
      ran.push(step.kind === 'directive' ? step.name : step.kind);
    }
  } finally {
    for (const b of background) await stop(b.proc);
  }
  return ran;
}

test("the started service's docs site shows its own addresses in the quick start, and says where they come from", async () => {
  const res = await fetch(`${service.docsUrl}/quickstart`);
  assert.equal(res.status, 200);
  const html = await res.text();
  for (const address of [service.api, service.journeyUrl, service.docsUrl]) assert.ok(html.includes(address), address);
  assert.match(html, /curl -fsS http:\/\/127\.0\.0\.1:\d+\/v1\/cases/);
  assert.doesNotMatch(html, /localhost:808[0-4]/);
  assert.match(html, /are those of the service serving this page: its <code>API_BASE_URL<\/code>/);
  // The receiver's address is the reader's own, not the service's: shown as the quick start writes it.
  assert.match(html, /process\.env\.RECEIVER_URL \?\? &#39;http:\/\/localhost:4000&#39;/);
  const openapi = (await (await fetch(`${service.docsUrl}/openapi.json`)).json()) as { servers: { variables: { base_url: { default: string } } }[] };
  assert.equal(openapi.servers[0].variables.base_url.default, service.api);
});

test('every page: each shell and script block says exec or no-exec', () => {
  const unmarked = markdownSources(ROOT).flatMap((s) => extractSamples(readSource(ROOT, s)).unmarked.map((line) => `${s.repoPath}:${line}`));
  assert.deepEqual(unmarked, []);
});

test('the executed samples of every page run against a started service', async () => {
  const pages = markdownSources(ROOT)
    .map((s) => ({ repoPath: s.repoPath, steps: extractSamples(readSource(ROOT, s)).steps }))
    .filter((p) => p.steps.length > 0);
  const ran: Record<string, string[]> = {};
  for (const page of pages) ran[page.repoPath] = await runPage(page.repoPath, page.steps);
  // The quick start's promise, step by step: curl and TypeScript, a webhook receiver, the journey, the decision.
  const quickstart = ran['docs/quickstart.md'] ?? [];
  for (const kind of ['shell', 'script', 'journey', 'wait-output']) assert.ok(quickstart.includes(kind), `the quick start ran a ${kind} step`);

  // The quick start's receiver started again, as a reader does the next day: it finds the endpoint
  // it declared by its address and rotates its secret, so the client still has one endpoint there.
  const second = run(process.execPath, ['--import', 'tsx', 'receiver.ts']);
  try {
    await waitUntil('the second receiver to listen', () => second.proc.stdout().includes('receiving webhooks'), 60_000);
  } finally {
    await stop(second.proc);
  }
  const creds = JSON.parse(readFileSync(join(service.dataDir, 'bootstrap-credentials.json'), 'utf8'));
  const listed = await fetch(`${service.api}/v1/webhook-endpoints?limit=100`, { headers: { authorization: `Bearer ${creds.api_key.secret}` } });
  const receiverUrl = `http://127.0.0.1:${receiverPort}/webhooks`;
  const atReceiver = ((await listed.json()) as { data: { url: string }[] }).data.filter((e) => e.url === receiverUrl);
  assert.equal(atReceiver.length, 1, 'one endpoint at the receiver address after two runs');
});
