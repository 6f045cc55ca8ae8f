import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { api, ok } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';
import { ErrorNotice, Loading, Notice, PageTitle } from '../components/status.tsx';
import { AA_TEXT_CONTRAST, LOGO_LIMITS, MAX_DISPLAY_NAME, buttonLabelColor, checkAppearance, contrastRatio } from '../domain.ts';
import { useI18n } from '../i18n/index.tsx';

type LogoChoice = { kind: 'keep' } | { kind: 'remove' } | { kind: 'new'; file: File; url: string };

/** The file's bytes in base64, for the service's JSON body. */
async function base64Of(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

const ratioText = (r: number) => `${(Math.floor(r * 100) / 100).toFixed(2)}:1`;

/**
 * The client's look for its journeys in this environment (administrators): name, colours and logo,
 * with the contrast of each pair computed as the person types (by the service's own rules, from
 * @idv/domain) and a preview drawn with the chosen colours. The service checks everything again.
 */
export function AppearanceScreen() {
  const { t, dateTime } = useI18n();
  const queryClient = useQueryClient();
  const current = useQuery({ queryKey: ['journey-appearance'], queryFn: () => ok(api.GET('/v1/journey-appearance')) });
  const [name, setName] = useState('');
  const [primary, setPrimary] = useState('#0b57d0');
  const [background, setBackground] = useState('#ffffff');
  const [logo, setLogo] = useState<LogoChoice>({ kind: 'keep' });
  const [fileProblem, setFileProblem] = useState<string | null>(null);
  // A new key empties the file input once its file is saved.
  const [fileInputKey, setFileInputKey] = useState(0);

  useEffect(() => {
    if (!current.data) return;
    setName(current.data.display_name ?? '');
    setPrimary(current.data.primary_color);
    setBackground(current.data.background_color);
  }, [current.data]);
  useEffect(() => () => (logo.kind === 'new' ? URL.revokeObjectURL(logo.url) : undefined), [logo]);

  const check = useMemo(() => checkAppearance({ display_name: name.trim() ? name : null, primary_color: primary, background_color: background }), [name, primary, background]);
  const save = useMutation({
    mutationFn: async () => {
      const logoField = logo.kind === 'keep' ? {} : logo.kind === 'remove' ? { logo: null } : { logo: { data_base64: await base64Of(logo.file) } };
      return ok(api.POST('/v1/journey-appearance', { params: { header: { 'idempotency-key': crypto.randomUUID() } }, body: { display_name: name.trim() ? name.trim() : null, primary_color: primary, background_color: background, ...logoField } }));
    },
    onSuccess: (data) => {
      queryClient.setQueryData(['journey-appearance'], data);
      setLogo({ kind: 'keep' });
      setFileInputKey((k) => k + 1);
    },
  });

  if (current.isPending) return <Loading />;
  if (current.isError) return <ErrorNotice error={current.error} onRetry={() => void current.refetch()} />;

  const pickFile = (file: File | undefined) => {
    setFileProblem(null);
    if (!file) return;
    if (!(LOGO_LIMITS.types as readonly string[]).includes(file.type)) return setFileProblem(t('appearance.logo.type'));
    if (file.size > LOGO_LIMITS.maxBytes) return setFileProblem(t('appearance.logo.size', { kb: String(LOGO_LIMITS.maxBytes / 1024) }));
    setLogo({ kind: 'new', file, url: URL.createObjectURL(file) });
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (check.ok && !fileProblem) save.mutate();
  };
  const serverField = save.error instanceof ApiError ? save.error.field : undefined;
  const problemFor = (field: string) => (!check.ok && check.field === field ? check.message : serverField === field ? (save.error as ApiError).message : null);
  const label = buttonLabelColor(primary.toLowerCase());
  const valid = /^#[0-9a-fA-F]{6}$/;

  const colour = (id: string, text: string, value: string, set: (v: string) => void, pairs: [string, number][]) => {
    const problem = problemFor(id);
    return (
      <fieldset className="panel colour-field">
        <legend>{text}</legend>
        <div className="field-inline">
          <input type="color" aria-label={text} value={valid.test(value) ? value.toLowerCase() : '#000000'} onInput={(e) => set((e.target as HTMLInputElement).value)} />
          <label className="field">
            <span>{t('appearance.hex')}</span>
            <input
              name={id}
              className="mono"
              value={value}
              maxLength={7}
              onInput={(e) => set((e.target as HTMLInputElement).value.trim())}
              aria-invalid={problem ? true : undefined}
              aria-describedby={`${id}-contrast${problem ? ` ${id}-error` : ''}`}
            />
          </label>
        </div>
        <ul id={`${id}-contrast`} className="contrast-list small">
          {pairs.map(([what, r]) => (
            <li key={what}>
              {what}: <strong>{ratioText(r)}</strong> {r >= AA_TEXT_CONTRAST ? t('appearance.aa.pass') : t('appearance.aa.fail')}
            </li>
          ))}
        </ul>
        {problem ? (
          <p id={`${id}-error`} className="field-error">
            {problem}
          </p>
        ) : null}
      </fieldset>
    );
  };

  const bothValid = valid.test(primary) && valid.test(background);
  const stored = current.data;
  return (
    <>
      <PageTitle text={t('appearance.title')}>{t('appearance.title')}</PageTitle>
      <p className="muted">{t('appearance.intro')}</p>
      {save.isSuccess ? <Notice kind="success">{t('appearance.saved')}</Notice> : null}
      <div className="appearance-layout">
        <form onSubmit={submit} className="stack" noValidate>
          <fieldset disabled={save.isPending} className="plain">
            <label className="field">
              <span>{t('appearance.name')}</span>
              <input
                name="display_name"
                value={name}
                maxLength={MAX_DISPLAY_NAME}
                onInput={(e) => setName((e.target as HTMLInputElement).value)}
                aria-invalid={problemFor('display_name') ? true : undefined}
                aria-describedby="display_name-help"
                autoComplete="organization"
              />
              <small id="display_name-help" className={problemFor('display_name') ? 'field-error' : 'muted'}>
                {problemFor('display_name') ?? t('appearance.name.help')}
              </small>
            </label>
            {colour('primary_color', t('appearance.primary'), primary, setPrimary, bothValid ? [[t('appearance.pair.links'), contrastRatio(primary.toLowerCase(), background.toLowerCase())], [t('appearance.pair.buttons'), contrastRatio(primary.toLowerCase(), label)]] : [])}
            {colour('background_color', t('appearance.background'), background, setBackground, valid.test(background) ? [[t('appearance.pair.text'), contrastRatio('#4a5360', background.toLowerCase())]] : [])}
            <fieldset className="panel">
              <legend>{t('appearance.logo')}</legend>
              <p className="small muted">
                {stored.logo && logo.kind === 'keep'
                  ? t('appearance.logo.current', { type: stored.logo.content_type.replace('image/', '').toUpperCase(), kb: (stored.logo.bytes / 1024).toFixed(1) })
                  : logo.kind === 'remove'
                    ? t('appearance.logo.removing')
                    : logo.kind === 'new'
                      ? logo.file.name
                      : t('appearance.logo.none')}
              </p>
              <label className="field">
                <span>{t('appearance.logo.choose')}</span>
                <input key={fileInputKey} type="file" name="logo" accept={LOGO_LIMITS.types.join(',')} onChange={(e) => pickFile((e.target as HTMLInputElement).files?.[0])} aria-describedby="logo-help" />
                <small id="logo-help" className="muted">
                  {fileProblem ?? (serverField?.startsWith('logo') || (save.error instanceof ApiError && save.error.code.startsWith('image_')) ? (save.error as ApiError).message : t('appearance.logo.help', { kb: String(LOGO_LIMITS.maxBytes / 1024), max: String(LOGO_LIMITS.maxSide) }))}
                </small>
              </label>
              {stored.logo && logo.kind !== 'remove' ? (
                <button type="button" className="button button-small" onClick={() => setLogo({ kind: 'remove' })}>
                  {t('appearance.logo.remove')}
                </button>
              ) : null}
            </fieldset>
            <button type="submit" className="button button-primary" disabled={!check.ok || Boolean(fileProblem)}>
              {t('appearance.save')}
            </button>
          </fieldset>
          {save.isError && !serverField && !(save.error instanceof ApiError && save.error.code.startsWith('image_')) ? <ErrorNotice error={save.error} /> : null}
          {stored.updated_at ? <p className="muted small">{t('appearance.updated', { time: dateTime(stored.updated_at) })}</p> : null}
        </form>
        <section className="panel" aria-labelledby="preview-title">
          <h2 id="preview-title">{t('appearance.preview')}</h2>
          {check.ok ? (
            <div className="journey-preview" style={{ backgroundColor: background, color: '#1b1f24' }}>
              <div className="journey-preview-brand">
                {logo.kind === 'new' ? <img src={logo.url} alt="" /> : null}
                {name.trim() ? <strong>{name.trim()}</strong> : null}
              </div>
              <p className="journey-preview-title">{t('appearance.preview.title')}</p>
              <p>{t('appearance.preview.body')}</p>
              <span className="journey-preview-link" style={{ color: primary }}>
                {t('appearance.preview.link')}
              </span>
              <span className="journey-preview-button" style={{ backgroundColor: primary, color: label }}>
                {t('appearance.preview.button')}
              </span>
            </div>
          ) : (
            <p className="muted">{t('appearance.preview.hidden')}</p>
          )}
          {stored.logo && logo.kind === 'keep' ? <p className="muted small">{t('appearance.preview.logoNote')}</p> : null}
        </section>
      </div>
    </>
  );
}
