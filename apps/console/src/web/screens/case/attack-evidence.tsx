import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { Check, Piece } from '../../api/types.ts';
import { Coded } from '../../components/coded.tsx';
import { ATTACK_REASONS, CHECK_REASONS, isAttackReason, type AttackReason } from '../../domain.ts';
import { useI18n } from '../../i18n/index.tsx';
import type { MessageKey } from '../../i18n/en.ts';
import { measureValue, measureWords, orderedMeasures } from '../../i18n/labels-measures.ts';
import { checkReasonWords, checkTypeWords } from '../../i18n/reasons.ts';

/** The challenge kinds with words of their own (one still per movement); any other `liveness_*` piece is a frame of a sequence, named by its place alone. */
const NAMED_FRAMES = new Set(['liveness_turn_left', 'liveness_turn_right', 'liveness_look_up', 'liveness_look_down']);

/** The case's challenge frames, in upload order (received_at, then the time-sortable id). */
function challengeFrames(pieces: readonly Piece[]): Piece[] {
  return pieces
    .filter((p) => p.kind.startsWith('liveness_'))
    .sort((a, b) => a.received_at.localeCompare(b.received_at) || a.id.localeCompare(b.id));
}

/** The attack reasons the case's checks raised, in the catalogue's order. */
function raisedAttacks(checks: readonly Check[]): AttackReason[] {
  const raised = new Set(checks.flatMap((c) => c.reasons).filter(isAttackReason));
  return ATTACK_REASONS.filter((r) => raised.has(r));
}

/**
 * The strip of challenge frames: thumbnails fetched lazily through the journaled image route, in
 * a row that scrolls; the arrow keys move between frames, Enter or a click enlarges one, Escape
 * closes it. Alt texts say which frame it is, never anything of the person.
 */
function FrameStrip({ frames, urlOf }: { frames: Piece[]; urlOf(pieceId: string): string }) {
  const { t } = useI18n();
  const [open, setOpen] = useState<number | null>(null);
  const [focus, setFocus] = useState(0);
  const buttons = useRef<(HTMLButtonElement | null)[]>([]);
  const enlarged = useRef<HTMLElement | null>(null);
  const alt = (i: number) => {
    const place = { n: i + 1, total: frames.length };
    const kind = frames[i].kind;
    return NAMED_FRAMES.has(kind) ? t('attack.frame_alt', { ...place, kind: t(`images.${kind}` as MessageKey) }) : t('attack.frame_alt_plain', place);
  };
  useEffect(() => {
    if (open !== null) enlarged.current?.scrollIntoView?.({ block: 'nearest' });
  }, [open]);
  const move = (to: number) => {
    const i = Math.max(0, Math.min(frames.length - 1, to));
    setFocus(i);
    buttons.current[i]?.focus();
    if (open !== null) setOpen(i);
  };
  const onKey = (e: KeyboardEvent) => {
    const keys: Record<string, () => void> = {
      ArrowRight: () => move(focus + 1),
      ArrowLeft: () => move(focus - 1),
      Home: () => move(0),
      End: () => move(frames.length - 1),
      Escape: () => setOpen(null),
    };
    const act = keys[e.key];
    if (!act) return;
    e.preventDefault();
    act();
  };
  return (
    <div className="frame-strip-wrap" onKeyDown={onKey}>
      <ol className="frame-strip" aria-label={t('attack.frames', { count: frames.length })}>
        {frames.map((p, i) => (
          <li key={p.id}>
            <button
              type="button"
              ref={(el) => {
                buttons.current[i] = el;
              }}
              className={open === i ? 'frame frame-open' : 'frame'}
              // One tab stop for the strip; the arrow keys move inside it.
              tabIndex={i === focus ? 0 : -1}
              aria-pressed={open === i}
              onFocus={() => setFocus(i)}
              onClick={() => {
                setFocus(i);
                setOpen(open === i ? null : i);
              }}
            >
              {p.available ? <img src={`${urlOf(p.id)}?view=thumbnail`} alt={alt(i)} loading="lazy" decoding="async" /> : <span className="small muted">{t('images.unavailable')}</span>}
              <span className="frame-number" aria-hidden="true">
                {i + 1}
              </span>
            </button>
          </li>
        ))}
      </ol>
      <p className="small muted">{t('attack.frames_help')}</p>
      {open !== null ? (
        <figure className="frame-enlarged" ref={enlarged} aria-live="polite">
          {frames[open].available ? <img src={urlOf(frames[open].id)} alt={alt(open)} /> : <p className="muted">{t('images.unavailable')}</p>}
          <figcaption>
            {alt(open)}{' '}
            <button type="button" className="button button-small button-quiet" onClick={() => setOpen(null)}>
              {t('attack.close')}
            </button>
          </figcaption>
        </figure>
      ) : null}
    </div>
  );
}

/** One check's measures in plain words (the same words as the checks panel). */
function Measures({ check }: { check: Check }) {
  const { locale } = useI18n();
  const rows = orderedMeasures(check.type, check.measures);
  if (!rows.length) return null;
  return (
    <dl className="measures" aria-label={checkTypeWords(check.type, locale)}>
      {rows.map(([name, value]) => (
        <div key={name}>
          <dt>
            <Coded code={name}>{measureWords(check.type, name, locale)}</Coded>
          </dt>
          <dd>{measureValue(name, value, locale)}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * What the reviewer needs to judge a suspected presentation attack: why each raised attack reason
 * was raised (a sentence written from the reason, never from the person's data), the challenge
 * frames in the order they were captured, and the face and liveness checks' measures. Shown when
 * the case has challenge frames or an attack reason.
 */
export function AttackEvidence({ pieces, checks, urlOf }: { pieces: Piece[]; checks: Check[]; urlOf(pieceId: string): string }) {
  const { t, locale } = useI18n();
  const frames = challengeFrames(pieces);
  const attacks = raisedAttacks(checks);
  if (!frames.length && !attacks.length) return null;
  const measured = checks.filter((c) => (c.type === 'liveness' || c.type === 'face_match') && Object.keys(c.measures).length > 0);
  return (
    <section className={attacks.length ? 'panel attack-panel attack-raised' : 'panel attack-panel'} aria-labelledby="attack-title">
      <h2 id="attack-title">{t(attacks.length ? 'attack.title_raised' : 'attack.title')}</h2>
      {attacks.length ? (
        <ul className="attack-why" aria-label={t('attack.why')}>
          {attacks.map((r) => (
            <li key={r}>
              <strong>
                <Coded code={r}>{checkReasonWords(r, locale)}</Coded>
              </strong>{' '}
              <span className="small">{checkTypeWords(CHECK_REASONS[r].check, locale)}</span>
              <p>{t(`attack.why.${r}` as MessageKey)}</p>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted small">{t('attack.none')}</p>
      )}
      {frames.length ? <FrameStrip frames={frames} urlOf={urlOf} /> : null}
      {measured.map((c) => (
        <div key={c.type}>
          <h3>{t('attack.measures', { check: checkTypeWords(c.type, locale) })}</h3>
          <Measures check={c} />
        </div>
      ))}
    </section>
  );
}
