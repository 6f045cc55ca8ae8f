import { createHmac, randomUUID } from 'node:crypto';
import {
  CHECKS_CHANNEL,
  appendJournal,
  claimCheckJobs,
  concludeCase,
  findCase,
  findCaseForUpdate,
  findFlowById,
  findJourney,
  finishCheckJob,
  isDatabaseUnavailable,
  answeredWalletRequests,
  latestAnsweredChallenge,
  listPieces,
  setPieceFaceBox,
  lockClaimedCheckJob,
  nextCheckJobDueAt,
  openReviewTask,
  releaseCheckJob,
  renewCheckJobLease,
  runForRequest,
  saveDocumentReading,
  storeCaseChecks,
  type CaseRow,
  type ClaimedCheckJob,
  type Database,
  type Db,
  type Executor,
  type PieceRow,
  type Tenant,
} from '@idv/db';
import {
  decideCase,
  errorCode,
  FailureStreak,
  isPieceKind,
  sandboxForce,
  walletSettings,
  withSandboxAttack,
  type CameraReport,
  type CheckReason,
  type CheckReport,
  type DocumentType,
  type LivenessChallenge,
  type FlowDefinition,
  type PieceKind,
  type PolicyDecision,
} from '@idv/domain';
import { FACE_TEMPLATE_LENGTH, FACE_TEMPLATE_VERSION, type CaseAnalysis, type CaseInput, type SequenceCapture, type WalletInput } from '@idv/engine';
import { checkJobDuration, countLoopFailure, observeCheckTasks } from '@idv/metrics';
import { LocalKeyWrapper, type MasterKeyring } from '@idv/vault';
import { FaceSearchIndex, readIdentities, walletPresentationPurpose, type CaseVault, type PieceBlobs, type StoredWalletPresentation } from '@idv/case-data';
import type { WorkerLog } from './dispatcher.ts';
import { findDuplicates, type DuplicateSettings } from './duplicates.ts';
import { Wakeup } from './wakeup.ts';

/** Runs the engine on one case (a pool of worker threads in production). */
export interface CaseAnalyser {
  analyse(input: CaseInput): Promise<CaseAnalysis>;
}

export interface ChecksRunnerOptions {
  db: Db;
  keyring: MasterKeyring;
  vault: CaseVault;
  pieces: Pick<PieceBlobs, 'read'>;
  analyser: CaseAnalyser;
  /** Wakes on the journey finish's NOTIFY (Database.listen); without it the runner only polls. */
  listen?: Database['listen'];
  now?: () => Date;
  log?: WorkerLog;
  /** Cases analysed at once (default 1: one case already keeps two threads busy). */
  concurrency?: number;
  /** How long a claim holds a job; past it another runner may take the job (default 2 minutes). */
  leaseMs?: number;
  pollMs?: number;
  /** Runs of a job that failed (an exception, not a check) before the case goes to review (default 3). */
  maxAttempts?: number;
  duplicates?: Partial<DuplicateSettings>;
  /** The face search index (default: the engine's template version, keys wrapped under `keyring`). */
  faceIndex?: FaceSearchIndex;
}

const silentLog: WorkerLog = { info() {}, warn() {}, error() {} };
const DEFAULT_LEASE_MS = 120_000;
const DEFAULT_POLL_MS = 2_000;
const RETRY_DELAY_MS = 10_000;
/** The journal and the review task name the system as actor of automated decisions. */
const SYSTEM = 'system';

export type JobOutcome = PolicyDecision['outcome'] | 'skipped' | 'failed' | 'lost';

/**
 * The automated checks of finished journeys: claims jobs (SKIP LOCKED, a lease), runs the engine on
 * the round's opened pieces, finds duplicates, applies the flow's policy, and writes it all in ONE
 * transaction. A crash before that commit lets the lease lapse and the job run again; a re-run
 * after it writes nothing, so one round gives one decision and one event.
 */
export class ChecksRunner {
  private readonly now: () => Date;
  private readonly log: WorkerLog;
  private readonly inFlight = new Set<Promise<void>>();
  private running = false;
  private loop: Promise<void> | null = null;
  private readonly wakeup = new Wakeup();
  private unlisten: (() => Promise<void>) | null = null;
  private readonly fingerprintKey: { keyId: string; key: Buffer };
  private readonly streak: FailureStreak;
  private stopping = false;
  private readonly faceIndex: FaceSearchIndex;

  constructor(private readonly o: ChecksRunnerOptions) {
    this.now = o.now ?? (() => new Date());
    this.log = o.log ?? silentLog;
    this.fingerprintKey = o.keyring.derive('document-fingerprint');
    this.faceIndex =
      o.faceIndex ?? new FaceSearchIndex(new LocalKeyWrapper(o.keyring), { version: FACE_TEMPLATE_VERSION, length: FACE_TEMPLATE_LENGTH });
    this.streak = new FailureStreak('check jobs: database access', this.log);
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    if (this.o.listen) this.unlisten = await this.o.listen(CHECKS_CHANNEL, () => this.wake());
    this.loop = this.run();
  }

  /** Stops claiming and waits for the cases in flight (their transaction commits or the lease lapses). */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.stopping = true;
    this.wake();
    await this.loop;
    await Promise.all([...this.inFlight]);
    await this.unlisten?.();
  }

  wake(): void {
    this.wakeup.wake();
  }

  /** Claims and runs every due job, one at a time, until none is due (tests and one-shot use). */
  async drain(): Promise<{ caseId: string; round: number; outcome: JobOutcome }[]> {
    const done: { caseId: string; round: number; outcome: JobOutcome }[] = [];
    for (;;) {
      const [job] = await this.claim(1);
      if (!job) return done;
      done.push({ caseId: job.caseId, round: job.round, outcome: await this.runJob(job) });
    }
  }

  claim(limit: number): Promise<ClaimedCheckJob[]> {
    return claimCheckJobs(this.o.db, { now: this.now(), limit, leaseMs: this.o.leaseMs ?? DEFAULT_LEASE_MS, token: randomUUID() });
  }

  private async run(): Promise<void> {
    const concurrency = this.o.concurrency ?? 1;
    while (this.running) {
      this.wakeup.reset();
      const free = concurrency - this.inFlight.size;
      if (free > 0) {
        let claimed: ClaimedCheckJob[] = [];
        try {
          claimed = await this.claim(free);
          this.streak.succeeded();
        } catch (err) {
          countLoopFailure('checks_runner');
          await this.sleep(this.streak.failed(err));
          continue;
        }
        for (const job of claimed) {
          const task = this.runJob(job)
            .then(() => undefined)
            .finally(() => {
              this.inFlight.delete(task);
              this.wake();
            });
          this.inFlight.add(task);
        }
      }
      if (!this.running) break;
      if (!this.wakeup.pending) await this.sleep(this.inFlight.size > 0 ? (this.o.pollMs ?? DEFAULT_POLL_MS) : await this.idleDelay());
    }
  }

  private async idleDelay(): Promise<number> {
    const pollMs = this.o.pollMs ?? DEFAULT_POLL_MS;
    try {
      const due = await nextCheckJobDueAt(this.o.db);
      return due ? Math.min(pollMs, Math.max(10, due.getTime() - this.now().getTime())) : pollMs;
    } catch {
      return pollMs;
    }
  }

  private sleep(ms: number): Promise<void> {
    return this.running ? this.wakeup.sleep(ms) : Promise.resolve();
  }

  /**
   * One claimed job, start to finish; never throws (a failure releases the job for a later run).
   * Runs as the work of the request that queued the job: its log lines name that request
   * (reqId, as the API's do) and so do the events its decision causes.
   */
  runJob(job: ClaimedCheckJob): Promise<JobOutcome> {
    return runForRequest(job.requestId, async () => {
      // The claim is renewed every third of the lease while the run goes on: only a runner that
      // stopped (killed, stuck) lets it lapse. A renewal that fails (the database away) is simply
      // tried again at the next tick.
      const leaseMs = this.o.leaseMs ?? DEFAULT_LEASE_MS;
      const renew = setInterval(() => {
        renewCheckJobLease(this.o.db, job, new Date(this.now().getTime() + leaseMs)).catch(() => {});
      }, Math.max(1_000, Math.floor(leaseMs / 3)));
      renew.unref();
      const started = Date.now();
      try {
        const outcome = await this.runClaimed(job);
        checkJobDuration.observe({ outcome }, (Date.now() - started) / 1000);
        return outcome;
      } finally {
        clearInterval(renew);
      }
    });
  }

  private async runClaimed(job: ClaimedCheckJob): Promise<JobOutcome> {
    const started = Date.now();
    const reqId = job.requestId ?? undefined;
    try {
      const outcome = await this.process(job);
      this.log.info({ reqId, case: job.caseId, round: job.round, outcome, ms: Date.now() - started }, 'checks done');
      return outcome;
    } catch (err) {
      if (isDatabaseUnavailable(err)) return this.putBack(job, err);
      const code = summary(err);
      this.log.error({ reqId, case: job.caseId, round: job.round, attempt: job.attempts, err: code }, 'checks failed');
      try {
        if (job.attempts >= (this.o.maxAttempts ?? 3)) {
          await this.giveUp(job, code);
          return 'failed';
        }
        await releaseCheckJob(this.o.db, job, new Date(this.now().getTime() + RETRY_DELAY_MS), code);
      } catch (inner) {
        // The lease will lapse and the job be claimed again.
        this.log.error({ reqId, case: job.caseId, err: summary(inner) }, 'check job release failed');
        countLoopFailure('checks_runner');
      }
      return 'failed';
    }
  }

  /**
   * The database went away during the run: nothing of it was committed (one transaction), and the
   * job is not at fault. It is handed back as soon as the database answers again, without counting
   * the run as one of its attempts (so an outage never sends cases to review as checks_unavailable),
   * and due at once. If the database stays away past the lease, the lease lapses and any runner
   * claims the job again.
   */
  private async putBack(job: ClaimedCheckJob, err: unknown): Promise<JobOutcome> {
    const until = Date.now() + (this.o.leaseMs ?? DEFAULT_LEASE_MS);
    let wait = this.streak.failed(err);
    while (!this.stopping && Date.now() + wait < until) {
      await new Promise((r) => setTimeout(r, wait));
      try {
        await releaseCheckJob(this.o.db, job, this.now(), 'database_unavailable', { refundAttempt: true });
        this.streak.succeeded();
        return 'failed';
      } catch (inner) {
        if (!isDatabaseUnavailable(inner)) {
          this.log.error({ case: job.caseId, err: errorCode(inner) }, 'check job release failed');
          return 'failed';
        }
        wait = this.streak.failed(inner);
      }
    }
    return 'failed';
  }

  private async process(job: ClaimedCheckJob): Promise<JobOutcome> {
    const { db } = this.o;
    const tenant: Tenant = { clientId: job.clientId, environment: job.environment };
    const caseRow = await findCase(db, tenant, job.caseId);
    const journey = await findJourney(db, job.caseId);
    if (!caseRow || caseRow.state !== 'processing' || !journey || journey.round !== job.round) return this.skip(job);
    const flowRow = await findFlowById(db, caseRow.flowId);
    if (!flowRow) throw new Error('flow_missing');
    const flow = flowRow.definition;
    const who = await readIdentities(db, { vault: this.o.vault, keyring: this.o.keyring }, caseRow);
    const pieceRows = currentPieces(await listPieces(db, caseRow.id), job.round);
    const pieces = await this.openPieces(db, pieceRows.filter((p) => p.kind !== 'liveness_frame'));
    const sequence = await this.openSequence(db, caseRow.id, job.round, pieceRows.filter((p) => p.kind === 'liveness_frame'));
    const front = pieceRows.find((p) => p.kind === 'document_front');
    const document =
      journey.documentCountry && journey.documentType ? { country: journey.documentCountry, type: journey.documentType as DocumentType } : null;
    const wallet = await this.openWallet(db, caseRow.id, job.round, flow, document !== null);
    // The analysis judges the document as of the moment it starts (its expiry, the person's age)...
    const analysedAt = this.now();
    const analysis = await this.o.analyser.analyse({
      pieces,
      declared: who.declared,
      entered: who.entered,
      questionnaire: who.questionnaireScore,
      flow,
      document,
      environment: job.environment,
      now: analysedAt,
      sequence,
      wallet,
    });
    observeCheckTasks(analysis.timings.tasks);

    const fingerprints = this.fingerprints(analysis);
    const dup = await findDuplicates(db, this.faceIndex, tenant, caseRow.id, fingerprints, analysis.reading.faceTemplates, analysedAt, this.o.duplicates);
    // ...but what the service reports (the decision's decided_at, the event's time, the journal,
    // the review task's opening and due date) is when the decision is taken: after the analysis
    // and the duplicate search, which take seconds, or minutes behind a long queue.
    const now = this.now();
    const sandbox = sandboxForce(job.environment, { declared: who.declared, entered: who.entered });
    // A sandbox attack value raises its reason and lets the flow's policy decide; the others force the outcome.
    const reports: CheckReport[] = sandbox?.outcome === 'attack' ? withSandboxAttack([...analysis.checks, dup.report], sandbox.reason) : [...analysis.checks, dup.report];
    const forced = sandbox?.outcome === 'attack' ? null : sandbox;
    const decision = decideCase({ reports, flow, resubmissions: job.round - 1, now, forced });
    if (sandbox) markForced(reports);

    return db.transaction(async (tx) => {
      if (!(await lockClaimedCheckJob(tx, job))) return 'lost';
      const row = await findCaseForUpdate(tx, tenant, caseRow.id);
      if (!row || row.state !== 'processing') {
        await finishCheckJob(tx, job, 'done', now);
        return 'skipped';
      }
      await this.saveReading(tx, tenant, row, job.round, analysis, fingerprints, now);
      // The face compared, on the front it was found on (a later round's reading replaces it).
      if (front) await setPieceFaceBox(tx, front.id, analysis.reading.portraitBox);
      await storeCaseChecks(tx, tenant, row.id, reports, dup.caseIds, now);
      await appendJournal(tx, tenant, {
        caseId: row.id,
        actor: SYSTEM,
        action: 'checks.completed',
        detail: { round: job.round, outcome: decision.outcome, checks: reports.map((r) => ({ type: r.type, status: r.status })), sandbox_forced: Boolean(sandbox) },
        at: now,
      });
      await applyDecision(tx, tenant, row, decision, now);
      await finishCheckJob(tx, job, 'done', now);
      return decision.outcome;
    });
  }

  /**
   * Indexes the face templates of readings made before the face search index existed, and marks
   * those of an older descriptor so that no later start opens them (run in the background by
   * startWorker at each start; ends early when the runner stops).
   */
  indexMissingFaces(): Promise<{ readings: number; templates: number; superseded: number }> {
    return this.faceIndex.indexMissing(this.o.db, this.o.vault, this.now, () => this.stopping);
  }

  /** A job with nothing to do (the case moved on, or a newer round exists): marked done if still ours. */
  private async skip(job: ClaimedCheckJob): Promise<JobOutcome> {
    return this.o.db.transaction(async (tx) => {
      if (!(await lockClaimedCheckJob(tx, job))) return 'lost';
      await finishCheckJob(tx, job, 'done', this.now());
      return 'skipped';
    });
  }

  /** After repeated failures the case is not left in processing: a person looks at it. */
  private async giveUp(job: ClaimedCheckJob, code: string): Promise<void> {
    const tenant: Tenant = { clientId: job.clientId, environment: job.environment };
    const now = this.now();
    await this.o.db.transaction(async (tx) => {
      if (!(await lockClaimedCheckJob(tx, job))) return;
      const row = await findCaseForUpdate(tx, tenant, job.caseId);
      if (row?.state === 'processing') {
        await openReviewTask(tx, tenant, { caseId: row.id, riskScore: 50, reasons: ['checks_unavailable'], actor: SYSTEM }, now);
      }
      await finishCheckJob(tx, job, 'failed', now, code);
    });
  }

  private async openPieces(db: Executor, rows: PieceRow[]): Promise<Partial<Record<PieceKind, Uint8Array>>> {
    const out: Partial<Record<PieceKind, Uint8Array>> = {};
    for (const p of rows) {
      const bytes = await this.o.pieces.read(db, p);
      if (bytes && isPieceKind(p.kind)) out[p.kind] = bytes;
    }
    return out;
  }

  /**
   * The wallet step's outcome up to this round (docs/wallet.md#the-wallet-in-a-case): the newest
   * accepted presentation, opened under the case's data key, with its portrait piece; or the
   * refusals when none was accepted. Null when the flow has no wallet step.
   */
  private async openWallet(db: Executor, caseId: string, round: number, flow: FlowDefinition, documentChosen: boolean): Promise<WalletInput | null> {
    if (!flow.steps.includes('wallet')) return null;
    const answered = await answeredWalletRequests(db, caseId, round);
    const acceptedAt = answered.findIndex((r) => r.outcome === 'accepted');
    const row = acceptedAt >= 0 ? answered[acceptedAt]! : null;
    // Refusals of the accepted one's round before it; without one, those of the latest round answered.
    const refusalRound = row?.round ?? answered[0]?.round;
    const refusals = answered.slice(acceptedAt >= 0 ? acceptedAt + 1 : 0).filter((r) => r.round === refusalRound && r.outcome !== 'accepted');
    const reasons = refusals.map((r) => r.outcome as CheckReason);
    if (!row?.presentationSealed) {
      return { accepted: null, refusals: reasons, fellBack: walletSettings(flow).document_fallback && documentChosen };
    }
    const stored = await this.o.vault.openJson<StoredWalletPresentation>(db, caseId, 'data', walletPresentationPurpose(row.id), row.presentationSealed);
    if (!stored) throw new Error('wallet_presentation_erased');
    let portrait: Uint8Array | null = null;
    if (stored.portrait_piece_id) {
      const piece = (await listPieces(db, caseId)).find((p) => p.id === stored.portrait_piece_id);
      portrait = piece ? await this.o.pieces.read(db, piece) : null;
    }
    return {
      accepted: {
        format: stored.format,
        claims: stored.claims,
        validUntil: new Date(stored.valid_until),
        statusChecked: stored.status_checked,
        claimsDisclosed: stored.claims_disclosed,
        portrait,
      },
      refusals: reasons,
      fellBack: false,
    };
  }

  /**
   * The live sequence of the round: its frames (in capture order, the order of their ids) and the
   * challenge they answered, whose metadata lists the same pieces. Frames without their challenge
   * (or a challenge listing other frames) are not judged as a sequence.
   */
  private async openSequence(db: Executor, caseId: string, round: number, rows: PieceRow[]): Promise<SequenceCapture | null> {
    if (rows.length === 0) return null;
    const challenge = await latestAnsweredChallenge(db, caseId, round);
    const listed = challenge?.sequence?.frames ?? [];
    const ordered = [...rows].sort((a, b) => (a.id < b.id ? -1 : 1));
    if (!challenge?.answeredAt || listed.length !== ordered.length || listed.some((f, i) => f.piece_id !== ordered[i]!.id)) return null;
    const frames: Uint8Array[] = [];
    for (const p of ordered) {
      const bytes = await this.o.pieces.read(db, p);
      if (!bytes) return null;
      frames.push(bytes);
    }
    return {
      movements: challenge.movements as LivenessChallenge[],
      issuedAt: challenge.issuedAt,
      expiresAt: challenge.expiresAt,
      answeredAt: challenge.answeredAt,
      times: listed.map((f) => f.t),
      frames,
      camera: challenge.sequence!.camera as CameraReport,
    };
  }

  /**
   * Keyed fingerprint of the document (issuing country + number) under a key derived from the
   * master key: equal documents give equal fingerprints, and the database alone cannot confirm a
   * guessed number.
   */
  private fingerprints(analysis: CaseAnalysis): string[] {
    const f = analysis.reading.fields;
    if (!f?.document_number) return [];
    const value = `${f.issuing_country ?? ''}:${f.document_number}`;
    const { keyId, key } = this.fingerprintKey;
    return [`v1.${keyId}.${createHmac('sha256', key).update(value).digest('hex')}`];
  }

  private async saveReading(tx: Executor, tenant: Tenant, row: CaseRow, round: number, analysis: CaseAnalysis, fingerprints: string[], now: Date): Promise<void> {
    const { fields, faceTemplates, zoneAgreement } = analysis.reading;
    const hasTemplates = faceTemplates.portrait !== null || faceTemplates.selfie !== null;
    if (!fields && !hasTemplates) return;
    await saveDocumentReading(tx, {
      caseId: row.id,
      round,
      ...tenant,
      fieldsSealed: fields ? await this.o.vault.sealJson(tx, row.id, 'data', `document_reading:${round}`, fields, now) : null,
      faceTemplatesSealed: hasTemplates ? await this.o.vault.sealJson(tx, row.id, 'biometric', `face_templates:${round}`, faceTemplates, now) : null,
      // The version that made them: a later descriptor's start-up pass skips them by it, unopened.
      faceTemplatesDescriptor: hasTemplates ? this.faceIndex.descriptor.version : null,
      fingerprints: fingerprints.length ? fingerprints : null,
      zoneAgreement,
      readAt: now,
    });
    // Searchable by the next cases (rotated by the tenant's secret rotation, see face-index.ts).
    if (hasTemplates) await this.faceIndex.index(tx, tenant, row.id, round, faceTemplates, now);
  }
}

/**
 * The pieces the checks of a round look at: for each kind, the newest piece not superseded up to
 * this round. A resubmission round holds only the retaken step's pieces; the other step's come
 * from the earlier round. When the document step was retaken, only that round's document sides
 * count (the person may have chosen another document, without a back).
 */
export function currentPieces(all: readonly PieceRow[], round: number): PieceRow[] {
  // The wallet's portrait is read with its presentation (openWallet), not as a photo of a step.
  const live = all.filter((p) => p.round <= round && !p.supersededAt && !p.deletedAt && p.kind !== 'wallet_portrait');
  const latestRound = (prefix: string) => Math.max(0, ...live.filter((p) => p.kind.startsWith(prefix)).map((p) => p.round));
  const docRound = latestRound('document_');
  const faceRound = Math.max(0, ...live.filter((p) => !p.kind.startsWith('document_')).map((p) => p.round));
  return live.filter((p) => p.round === (p.kind.startsWith('document_') ? docRound : faceRound));
}

/** The decision, through the case moves the rest of the service uses (same journal and events). */
async function applyDecision(tx: Executor, tenant: Tenant, row: CaseRow, d: PolicyDecision, now: Date): Promise<void> {
  switch (d.outcome) {
    case 'approved':
      await concludeCase(tx, tenant, row, { outcome: 'approve', reasonCode: null, steps: null, actor: SYSTEM }, now);
      return;
    case 'rejected':
      await concludeCase(tx, tenant, row, { outcome: 'reject', reasonCode: d.reasonCode, steps: null, actor: SYSTEM }, now);
      return;
    case 'resubmission_requested':
      await concludeCase(tx, tenant, row, { outcome: 'resubmit', reasonCode: d.reasonCode, steps: d.steps, actor: SYSTEM }, now);
      return;
    case 'in_review':
      await openReviewTask(tx, tenant, { caseId: row.id, riskScore: d.riskScore, reasons: d.reasons, dueAt: d.dueAt, actor: SYSTEM }, now);
      return;
  }
}

/** A forced sandbox outcome says so in the stored reports (on document_validity, where the reason belongs). */
function markForced(reports: CheckReport[]): void {
  const reason: CheckReason = 'sandbox_forced';
  const validity = reports.find((r) => r.type === 'document_validity');
  if (validity) validity.reasons = [...validity.reasons, reason];
  else reports.push({ type: 'document_validity', status: 'ok', reasons: [reason], measures: {} });
}

/**
 * What is logged and stored of a failed run: the error's name and code, never its message, which
 * may quote what a check read on a document (personal data).
 */
function summary(err: unknown): string {
  const { name, code } = errorCode(err);
  return `${name ?? 'Error'}${code ? ` (${code})` : ''}`;
}

