import { randomBytes } from 'node:crypto';
import {
  findFaceIndexKey,
  indexFaces,
  lockReadingTemplates,
  markReadingDescriptor,
  nearestFaces,
  readingsMissingFromFaceIndex,
  storeFaceIndexKey,
  type Db,
  type Environment,
  type Executor,
  type Tenant,
} from '@idv/db';
import type { CaseVault } from './case-vault.ts';
import { FaceRotation, type KeyWrapper } from '@idv/vault';

/** The two templates of a reading, as the engine gives them (either may be missing). */
export interface FaceTemplates {
  portrait: number[] | null;
  selfie: number[] | null;
}

export const faceIndexKeyContext = (tenant: Tenant) => `face_index:${tenant.clientId}:${tenant.environment}`;

/** Rotations kept in memory (each 1 MB at 512 dimensions): the most recently used tenants. */
const CACHED_ROTATIONS = 16;

/**
 * The face search index of every tenant (docs/personal-data.md, "The face search index"): each
 * template is rotated by its tenant's secret rotation before it is stored or searched for. The
 * tenant's key (32 random bytes, wrapped under the master keyring, made on first use) seeds the
 * rotation; unwrapped rotations are cached per process.
 */
export class FaceSearchIndex {
  private readonly rotations = new Map<string, FaceRotation>();

  constructor(
    private readonly wrapper: KeyWrapper,
    /** The engine's template version and length (FACE_TEMPLATE_VERSION, FACE_TEMPLATE_LENGTH of @idv/engine). */
    readonly descriptor: { version: string; length: number },
  ) {}

  /**
   * The tenant's rotation; makes and stores the tenant's key the first time. Only rotations
   * already made are shared between callers, never a making in flight: a caller inside a
   * transaction must not wait for another's query on the outer handle (on PGlite that query waits
   * for the transaction: a deadlock).
   */
  async rotation(db: Executor, tenant: Tenant, now: Date): Promise<FaceRotation> {
    const id = `${tenant.clientId}\u0000${tenant.environment}`;
    const cached = this.rotations.get(id);
    if (cached) {
      this.rotations.delete(id);
      this.rotations.set(id, cached);
      return cached;
    }
    const { rotation, made } = await this.makeRotation(db, tenant, now);
    // A key made just now may belong to a transaction that rolls back: cached once read back.
    if (!made) {
      this.rotations.set(id, rotation);
      while (this.rotations.size > CACHED_ROTATIONS) this.rotations.delete(this.rotations.keys().next().value!);
    }
    return rotation;
  }

  private async makeRotation(db: Executor, tenant: Tenant, now: Date): Promise<{ rotation: FaceRotation; made: boolean }> {
    const context = faceIndexKeyContext(tenant);
    let wrapped = await findFaceIndexKey(db, tenant);
    const made = !wrapped;
    if (!wrapped) wrapped = await storeFaceIndexKey(db, tenant, await this.wrapper.wrap(randomBytes(32), context), now);
    const seed = await this.wrapper.unwrap(wrapped, context);
    try {
      return { rotation: FaceRotation.fromSeed(seed, this.descriptor.length), made };
    } finally {
      seed.fill(0);
    }
  }

  /** The reading's templates of the engine's current version and length, by source. */
  private usable(templates: FaceTemplates): Array<{ source: 'selfie' | 'portrait'; template: number[] }> {
    const out: Array<{ source: 'selfie' | 'portrait'; template: number[] }> = [];
    for (const source of ['selfie', 'portrait'] as const) {
      const t = templates[source];
      if (Array.isArray(t) && t.length === this.descriptor.length) out.push({ source, template: t });
    }
    return out;
  }

  /** Adds a reading's templates to the index (in the caller's transaction: the reading's). */
  async index(tx: Executor, tenant: Tenant, caseId: string, round: number, templates: FaceTemplates, now: Date): Promise<number> {
    const faces = this.usable(templates);
    if (faces.length === 0) return 0;
    const rotation = await this.rotation(tx, tenant, now);
    await indexFaces(
      tx,
      tenant,
      faces.map((f) => ({ caseId, round, source: f.source, descriptor: this.descriptor.version, vector: rotation.apply(f.template) })),
      now,
    );
    return faces.length;
  }

  /**
   * Other cases of the tenant with a template within `maxDistance` of one of these templates
   * (each case with its smallest distance), and how many indexed templates the search examined
   * (the k nearest of each template searched for).
   */
  async search(
    db: Executor,
    tenant: Tenant,
    caseId: string,
    templates: FaceTemplates,
    maxDistance: number,
    now: Date,
    options: { k?: number; efSearch?: number } = {},
  ): Promise<{ matches: Map<string, number>; examined: number }> {
    const matches = new Map<string, number>();
    const faces = this.usable(templates);
    if (faces.length === 0) return { matches, examined: 0 };
    const rotation = await this.rotation(db, tenant, now);
    let examined = 0;
    for (const f of faces) {
      const nearest = await nearestFaces(db, tenant, { descriptor: this.descriptor.version, vector: rotation.apply(f.template), excludeCaseId: caseId, ...options });
      examined += nearest.length;
      for (const n of nearest) {
        if (n.distance > maxDistance) break;
        matches.set(n.caseId, Math.min(n.distance, matches.get(n.caseId) ?? Infinity));
      }
    }
    return { matches, examined };
  }

  /**
   * Indexes the readings missing from the index whose templates may be of the current version:
   * readings sealed before the index existed (or while a tenant's key could not be made). Each is
   * opened with its case's biometric key in a transaction that locks the reading (an erasure
   * meanwhile waits, then deletes what was added; an erased reading is skipped), indexed, and its
   * descriptor recorded: the current version, or `superseded:<length>` when no template has the
   * current length (an older descriptor's, never indexed). Readings recorded with another
   * descriptor are not selected, so a second start opens none of them (docs/face-match.md,
   * "Readings of an older descriptor"). Returns the readings opened, the templates indexed and the
   * readings marked superseded; `stop()` ends it between batches.
   */
  async indexMissing(
    db: Db,
    vault: CaseVault,
    now: () => Date,
    stop: () => boolean = () => false,
    batch = 100,
  ): Promise<{ readings: number; templates: number; superseded: number }> {
    let after: { caseId: string; round: number } | null = null;
    const done = { readings: 0, templates: 0, superseded: 0 };
    while (!stop()) {
      const rows = await readingsMissingFromFaceIndex(db, this.descriptor.version, after, batch);
      for (const r of rows) {
        const outcome = await db.transaction(async (tx) => {
          const reading = await lockReadingTemplates(tx, r.caseId, r.round);
          if (!reading) return null;
          const key = await vault.existingKey(tx, r.caseId, 'biometric');
          if (!key) return null;
          const templates = key.openJson<FaceTemplates>(reading.sealed, `face_templates:${r.round}`);
          const tenant = { clientId: reading.clientId, environment: reading.environment as Environment };
          const indexed = await this.index(tx, tenant, r.caseId, r.round, templates, now());
          await markReadingDescriptor(tx, r.caseId, r.round, indexed > 0 ? this.descriptor.version : supersededLabel(templates));
          return indexed;
        });
        if (outcome === null) continue;
        done.readings += 1;
        done.templates += outcome;
        if (outcome === 0) done.superseded += 1;
      }
      if (rows.length < batch) break;
      after = rows[rows.length - 1]!;
    }
    return done;
  }
}

/** `superseded:<length>` for templates of another descriptor (the lengths found, `+`-joined when they differ). */
function supersededLabel(templates: FaceTemplates): string {
  const lengths = new Set([templates.selfie, templates.portrait].filter((t): t is number[] => Array.isArray(t)).map((t) => t.length));
  return `superseded:${[...lengths].sort((a, b) => a - b).join('+') || 'none'}`;
}
