import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type ChangeEvent, type FormEvent } from 'react';
import { api, ok } from '../../api/client.ts';
import type { TrustAnchor } from '../../api/types.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { ErrorNotice, Loading, Notice, PageTitle } from '../../components/status.tsx';
import { useI18n } from '../../i18n/index.tsx';
import type { MessageKey } from '../../i18n/en.ts';

/** The service's limits (it checks them too): a certificate file of at most 16 KB, 100 anchors. */
const MAX_PEM_BYTES = 16_384;
const MAX_ANCHORS = 100;
/** An anchor expiring within this many days is flagged: the issuer's next root should be added before. */
const SOON_DAYS = 30;
const DAY_MS = 86_400_000;

type Kind = TrustAnchor['kind'];
const KINDS: Kind[] = ['iaca', 'sd_jwt_issuer'];
const COLUMNS: MessageKey[] = ['anchors.col.kind', 'anchors.col.label', 'anchors.col.subject', 'anchors.col.expiry', 'anchors.col.actions'];

/** Where an anchor stands against today: expired, expiring within SOON_DAYS, or valid. */
export function anchorExpiry(notAfter: string, now: number): 'expired' | 'soon' | 'valid' {
  const left = new Date(notAfter).getTime() - now;
  return left <= 0 ? 'expired' : left <= SOON_DAYS * DAY_MS ? 'soon' : 'valid';
}
const EXPIRY_BADGE = { expired: 'badge-failed', soon: 'badge-attention', valid: 'badge-ok' } as const;

const anchorsKey = ['trust-anchors'];
const idem = () => ({ 'idempotency-key': crypto.randomUUID() });

/**
 * The certificates wallet credentials must chain to (GET/POST/DELETE /v1/trust-anchors, for
 * administrators): each with its subject and expiry, a new one pasted or read from a .pem file,
 * removed after a confirmation. The certificate is checked by the service; its refusal is shown in
 * its own words.
 */
export function TrustAnchorsScreen() {
  const { t } = useI18n();
  const anchors = useQuery({ queryKey: anchorsKey, queryFn: () => ok(api.GET('/v1/trust-anchors')) });
  return (
    <>
      <PageTitle text={t('anchors.title')}>{t('anchors.title')}</PageTitle>
      <p className="muted">{t('anchors.intro')}</p>
      {anchors.isPending ? <Loading /> : anchors.isError ? <ErrorNotice error={anchors.error} onRetry={() => void anchors.refetch()} /> : <AnchorList anchors={anchors.data.data} />}
      <NewAnchor full={(anchors.data?.data.length ?? 0) >= MAX_ANCHORS} />
    </>
  );
}

function AnchorList({ anchors }: { anchors: TrustAnchor[] }) {
  const { t, dateTime } = useI18n();
  const queryClient = useQueryClient();
  const [removing, setRemoving] = useState<TrustAnchor | null>(null);
  const remove = useMutation({
    mutationFn: (a: TrustAnchor) => ok(api.DELETE('/v1/trust-anchors/{anchor_id}', { params: { header: idem(), path: { anchor_id: a.id } } })).then(() => a),
    onSettled: () => {
      setRemoving(null);
      void queryClient.invalidateQueries({ queryKey: anchorsKey });
    },
  });
  const now = Date.now();
  const nameOf = (a: TrustAnchor) => a.label ?? a.subject;
  return (
    <section aria-labelledby="anchors-list-title">
      <h2 id="anchors-list-title">{t('anchors.list')}</h2>
      {remove.isSuccess ? <Notice kind="success">{t('anchors.removed', { name: nameOf(remove.data) })}</Notice> : null}
      {remove.isError ? <ErrorNotice error={remove.error} /> : null}
      {anchors.length === 0 ? (
        <p className="empty">{t('anchors.empty')}</p>
      ) : (
        <div className="table-wrap" tabIndex={0} role="region" aria-labelledby="anchors-caption">
          <table className="table table-cards">
            <caption id="anchors-caption" className="visually-hidden">
              {t('anchors.list')}
            </caption>
            <thead>
              <tr>
                {COLUMNS.map((c) => (
                  <th key={c} scope="col">
                    {t(c)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {anchors.map((a) => {
                const expiry = anchorExpiry(a.not_after, now);
                return (
                  <tr key={a.id}>
                    <th scope="row">{t(`anchors.kind.${a.kind}`)}</th>
                    <td data-label={t('anchors.col.label')}>{a.label ?? <span className="muted">{t('anchors.unlabelled')}</span>}</td>
                    <td data-label={t('anchors.col.subject')} className="cell-wide">
                      <span className="break">{a.subject}</span>
                      {a.issuer !== a.subject ? <span className="endpoint-note muted small break">{t('anchors.issuedBy', { issuer: a.issuer })}</span> : null}
                      <span className="endpoint-note muted small mono break" title={a.fingerprint_sha256}>
                        SHA-256 {a.fingerprint_sha256.slice(0, 16)}…
                      </span>
                    </td>
                    <td data-label={t('anchors.col.expiry')}>
                      {dateTime(a.not_after)}{' '}
                      {expiry === 'valid' ? null : <span className={`badge ${EXPIRY_BADGE[expiry]}`}>{t(`anchors.expiry.${expiry}`)}</span>}
                    </td>
                    <td data-label={t('anchors.col.actions')}>
                      <button type="button" className="button button-small button-reject" aria-label={t('anchors.remove', { name: nameOf(a) })} onClick={() => setRemoving(a)}>
                        {t('anchors.removeButton')}
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <ConfirmDialog
        open={removing !== null}
        title={removing ? t('anchors.remove.confirm', { name: nameOf(removing) }) : ''}
        confirmLabel={t('confirm.remove')}
        destructive
        busy={remove.isPending}
        onCancel={() => setRemoving(null)}
        onConfirm={() => removing && remove.mutate(removing)}
      >
        <p>{t('anchors.remove.body')}</p>
      </ConfirmDialog>
    </section>
  );
}

function NewAnchor({ full }: { full: boolean }) {
  const { t } = useI18n();
  const queryClient = useQueryClient();
  const [kind, setKind] = useState<Kind>('iaca');
  const [label, setLabel] = useState('');
  const [pem, setPem] = useState('');
  const [fileError, setFileError] = useState<string | null>(null);
  const add = useMutation({
    mutationFn: () =>
      ok(api.POST('/v1/trust-anchors', { params: { header: idem() }, body: { kind, certificate_pem: pem, label: label.trim() || undefined } })),
    onSuccess: () => {
      setLabel('');
      setPem('');
      void queryClient.invalidateQueries({ queryKey: anchorsKey });
    },
  });
  const readFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    e.target.value = '';
    add.reset();
    setFileError(null);
    if (!file) return;
    // Read in the browser only: a file too large is not even read.
    if (file.size > MAX_PEM_BYTES) return setFileError(t('anchors.fileTooLarge', { max: MAX_PEM_BYTES / 1024 }));
    setPem(await file.text());
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate();
  };
  return (
    <section className="panel" aria-labelledby="new-anchor-title">
      <h2 id="new-anchor-title">{t('anchors.new')}</h2>
      {add.isSuccess ? <Notice kind="success">{t('anchors.added', { subject: add.data.subject })}</Notice> : null}
      {full ? (
        <p className="muted">{t('anchors.full', { max: MAX_ANCHORS })}</p>
      ) : (
        <form onSubmit={submit}>
          <fieldset className="steps">
            <legend>{t('anchors.kind')}</legend>
            {KINDS.map((k) => (
              <label key={k} className="field-inline check-line">
                <input type="radio" name="kind" value={k} checked={kind === k} onChange={() => setKind(k)} />
                <span>
                  {t(`anchors.kind.${k}`)}
                  <span className="muted small">{t(`anchors.kindHelp.${k}`)}</span>
                </span>
              </label>
            ))}
          </fieldset>
          <label className="field">
            <span>{t('anchors.label')}</span>
            <input name="label" value={label} onChange={(e) => setLabel(e.target.value)} maxLength={100} autoComplete="off" />
          </label>
          <label className="field">
            <span>{t('anchors.pem')}</span>
            <textarea
              name="certificate_pem"
              className="mono"
              rows={8}
              value={pem}
              onChange={(e) => {
                add.reset();
                setPem(e.target.value);
              }}
              maxLength={MAX_PEM_BYTES}
              spellCheck={false}
              placeholder="-----BEGIN CERTIFICATE-----"
            />
          </label>
          <label className="field">
            <span>{t('anchors.file')}</span>
            <input type="file" name="file" accept=".pem,.crt,.cer,application/x-pem-file" onChange={(e) => void readFile(e)} />
          </label>
          {fileError ? (
            <p className="field-error" role="alert">
              {fileError}
            </p>
          ) : null}
          <button type="submit" className="button button-primary" disabled={add.isPending || pem.trim() === ''}>
            {t('anchors.add')}
          </button>
          {add.isError ? <ErrorNotice error={add.error} /> : null}
        </form>
      )}
    </section>
  );
}
