import { h } from '../dom.ts';
import { t } from '../i18n.ts';
import type { MessageKey } from '../messages/en.ts';
import { errorLine, errorText, type JourneyView } from '../view.ts';
import type { PieceKind } from '../types.ts';

/** Review before sending: every photo the flow needs, a thumbnail where it was taken here, retake any of them. */
export function checkScreen(j: JourneyView): void {
  // Nothing to photograph (the wallet alone, say): nothing to review, straight to the finish.
  if (j.state.required_pieces.length === 0) return uploadingScreen(j);
  const urls: string[] = [];
  const items = j.state.required_pieces.map((kind: PieceKind) => {
    const blob = j.captures.get(kind);
    const entry = j.uploads.get(kind);
    const received = j.state.pieces.some((p) => p.kind === kind);
    let thumb: Node;
    if (blob) {
      const url = URL.createObjectURL(blob);
      urls.push(url);
      thumb = h('img', { src: url, alt: '', class: 'thumb' });
    } else thumb = h('span', { class: 'thumb placeholder', 'aria-hidden': 'true' });
    const status =
      entry?.status === 'failed'
        ? h('span', { class: 'status failed' }, errorText(entry.code ?? 'unknown'))
        : entry && entry.status !== 'sent'
          ? h('span', { class: 'status' }, t('check_sending'))
          : received || entry
            ? h('span', { class: 'status ok' }, t('check_received'))
            : h('span', { class: 'status missing' }, t('check_missing'));
    const retake = h(
      'button',
      {
        type: 'button',
        class: 'secondary small',
        onclick: () =>
          kind === 'liveness_frame'
            ? j.lazy(() => import('./sequence.ts'), (m) => m.sequenceScreen(j, () => checkScreen(j)))
            : j.lazy(() => import('./capture.ts'), (m) => m.captureScreen(j, kind, () => checkScreen(j))),
      },
      t('retake'),
    );
    return h('li', { class: 'check-item' }, thumb, h('div', null, h('strong', null, t(`piece_${kind}` as MessageKey)), h('br'), status), retake);
  });
  const ready = j.state.required_pieces.every((k) => j.has(k));
  const send = h('button', { type: 'button', class: 'primary', disabled: !ready, onclick: () => uploadingScreen(j) }, t('check_send'));
  j.show(
    {
      step: 'check',
      title: t('check_title'),
      body: [h('p', null, t('check_intro')), h('ul', { class: 'check-list' }, ...items)],
      actions: [send],
    },
    () => checkScreen(j),
  );
}

/** Sends what is left, with the real upload progress, then finishes: the case leaves collecting. */
export function uploadingScreen(j: JourneyView): void {
  const bar = h('progress', { max: 100, value: 0, 'aria-labelledby': 'uploading-label' });
  const label = h('p', { id: 'uploading-label', 'aria-live': 'polite' });
  const error = errorLine();
  const retry = h('button', { type: 'button', class: 'primary', hidden: true }, t('retry'));
  let finishing = false;
  const update = () => {
    const { loaded, total } = j.uploads.progress();
    const percent = total ? Math.floor((loaded / total) * 100) : 100;
    bar.value = percent;
    label.textContent = t('uploading_progress', { percent });
    const failed = j.uploads.failed();
    if (failed.some((k) => j.uploads.get(k)?.code === 'network')) {
      error.textContent = t('uploading_failed');
      retry.hidden = false;
      return;
    }
    if (failed.length) {
      unsubscribe();
      return checkScreen(j);
    }
    if (!j.uploads.busy() && !finishing) void finish();
  };
  const finish = async () => {
    finishing = true;
    try {
      j.state = await j.api.post('/finish');
      unsubscribe();
      j.next();
    } catch (err) {
      finishing = false;
      const text = j.failure(err);
      if (text) {
        error.textContent = text;
        retry.hidden = false;
      }
    }
  };
  retry.onclick = () => {
    retry.hidden = true;
    error.textContent = '';
    if (j.uploads.failed().length) j.uploads.retry();
    else void finish();
  };
  const unsubscribe = j.uploads.subscribe(update);
  j.show(
    { step: 'uploading', title: t('uploading_title'), body: [h('p', null, t('uploading_body')), bar, label, error], actions: [retry] },
    () => uploadingScreen(j),
  );
  update();
}
