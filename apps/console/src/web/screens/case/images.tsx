import { useState } from 'react';
import type { Piece } from '../../api/types.ts';
import { useI18n } from '../../i18n/index.tsx';
import type { MessageKey } from '../../i18n/en.ts';

const SIDES = ['document_front', 'document_back'];
/** The challenge frames (`liveness_*`) have their own strip (attack-evidence.tsx): there may be dozens. */
/** A wallet credential's portrait stands beside the selfie as the document's portrait would (docs/wallet.md). */
const FACES = ['wallet_portrait', 'selfie'];

const pieceLabel = (kind: string): MessageKey => `images.${kind}` as MessageKey;

/** One document side with zoom, rotation and contrast (CSS transforms on the image, applied through the DOM: no inline style in the page). */
function DocumentSide({ piece, url, onSettled }: { piece: Piece; url: string; onSettled(): void }) {
  const { t } = useI18n();
  const [zoom, setZoom] = useState(1);
  const [turn, setTurn] = useState(0);
  const [contrast, setContrast] = useState(100);
  const id = `contrast-${piece.id}`;
  return (
    <figure className="doc-side">
      <figcaption>{t(pieceLabel(piece.kind))}</figcaption>
      {piece.available ? (
        <>
          <div className="doc-frame">
            <img
              src={url}
              alt={t(pieceLabel(piece.kind))}
              // What the reviewer reads first: before anything else of the page.
              fetchPriority="high"
              onLoad={onSettled}
              onError={onSettled}
              style={{ transform: `scale(${zoom}) rotate(${turn * 90}deg)`, filter: `contrast(${contrast}%)` }}
              draggable={false}
            />
          </div>
          <div className="doc-controls" role="group" aria-label={t(pieceLabel(piece.kind))}>
            <button type="button" className="button button-small" onClick={() => setZoom((z) => Math.max(1, z - 0.5))} disabled={zoom <= 1}>
              {t('images.zoomOut')}
            </button>
            <button type="button" className="button button-small" onClick={() => setZoom((z) => Math.min(4, z + 0.5))} disabled={zoom >= 4}>
              {t('images.zoomIn')}
            </button>
            <button type="button" className="button button-small" onClick={() => setTurn((r) => (r + 1) % 4)}>
              {t('images.rotate')}
            </button>
            <label htmlFor={id} className="small">
              {t('images.contrast')}
            </label>
            <input id={id} type="range" min={50} max={250} step={10} value={contrast} onChange={(e) => setContrast(Number(e.target.value))} />
            <button
              type="button"
              className="button button-small button-quiet"
              onClick={() => {
                setZoom(1);
                setTurn(0);
                setContrast(100);
              }}
            >
              {t('images.reset')}
            </button>
          </div>
        </>
      ) : (
        <p className="muted">{t('images.unavailable')}</p>
      )}
    </figure>
  );
}

/** A view of a piece the service makes (thumbnail, portrait): the piece's own address with `view`. */
const viewUrl = (url: string, view: 'thumbnail' | 'portrait') => `${url}?view=${view}`;

/**
 * One face at the size the comparison needs (a thumbnail the service made, not the whole photo),
 * with the image as received a click away (a download journaled like any other).
 */
function Face({ piece, url }: { piece: Piece; url: string | undefined }) {
  const { t } = useI18n();
  const label = t(pieceLabel(piece.kind));
  return (
    <figure className="face">
      {piece.available ? <img src={url && viewUrl(url, 'thumbnail')} alt={label} fetchPriority="low" /> : <p className="muted small">{t('images.unavailable')}</p>}
      <figcaption>
        {label}
        {piece.available && url ? <FullSizeLink url={url} /> : null}
      </figcaption>
    </figure>
  );
}

/**
 * The portrait the checks compared, cut from the document's front by the service. Where no face
 * was found on the document (the service answers 404), the front's thumbnail stands instead,
 * with a note saying so.
 */
function DocumentPortrait({ front, url }: { front: Piece; url: string | undefined }) {
  const { t } = useI18n();
  const [cut, setCut] = useState(true);
  if (!front.available) {
    return (
      <figure className="face face-portrait">
        <p className="muted small">{t('images.unavailable')}</p>
        <figcaption>{t('images.portrait')}</figcaption>
      </figure>
    );
  }
  return (
    <figure className="face face-portrait">
      <img
        src={url && viewUrl(url, cut ? 'portrait' : 'thumbnail')}
        alt={t(cut ? 'images.portrait' : 'images.document_front')}
        fetchPriority="low"
        onError={() => setCut(false)}
      />
      <figcaption>
        {cut ? t('images.portrait') : t('images.portraitMissing')}
        {url ? <FullSizeLink url={url} /> : null}
      </figcaption>
    </figure>
  );
}

/**
 * The images of a case: the document sides (with their controls), then the faces, the
 * portrait cut from the document beside the selfie, at one size. The faces
 * are asked for only once the document sides have come (or failed): they would otherwise share the
 * browser's connections and the servers with the sides the reviewer reads first.
 */
export function CaseImages({ pieces, urlOf }: { pieces: Piece[]; urlOf(pieceId: string): string }) {
  const { t } = useI18n();
  const sides = SIDES.flatMap((k) => pieces.filter((p) => p.kind === k));
  const faces = FACES.flatMap((k) => pieces.filter((p) => p.kind === k));
  const front = sides.find((p) => p.kind === 'document_front');
  const [sidesSettled, setSidesSettled] = useState(0);
  const facesNow = sidesSettled >= sides.filter((p) => p.available).length;
  const faceUrl = (id: string) => (facesNow ? urlOf(id) : undefined);
  return (
    <section className="panel" aria-labelledby="images-title">
      <h2 id="images-title">{t('images.title')}</h2>
      {pieces.length === 0 ? <p className="muted">{t('images.none')}</p> : null}
      <div className="doc-sides">
        {sides.map((p) => (
          <DocumentSide key={p.id} piece={p} url={urlOf(p.id)} onSettled={() => setSidesSettled((n) => n + 1)} />
        ))}
      </div>
      {faces.length > 0 ? (
        <>
          <h3>{t('images.faces')}</h3>
          <div className="faces">
            {front ? <DocumentPortrait front={front} url={faceUrl(front.id)} /> : null}
            {faces.map((p) => (
              <Face key={p.id} piece={p} url={faceUrl(p.id)} />
            ))}
          </div>
        </>
      ) : null}
    </section>
  );
}

/** The full image a thumbnail stands for, a link away (opened in a new tab; its download is journaled). */
function FullSizeLink({ url }: { url: string }) {
  const { t } = useI18n();
  return (
    <>
      {' · '}
      <a href={url} target="_blank" rel="noopener" className="small">
        {t('images.full')}
      </a>
    </>
  );
}
