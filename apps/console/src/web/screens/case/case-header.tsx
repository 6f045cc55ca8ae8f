import type { ReviewCase } from '../../api/types.ts';
import { Coded } from '../../components/coded.tsx';
import { PageTitle } from '../../components/status.tsx';
import { useI18n } from '../../i18n/index.tsx';
import { caseAge } from '../../i18n/case-age.ts';
import { checkReasonWords } from '../../i18n/reasons.ts';

/**
 * Which case this is, at the top of the task screen: the client's reference (the name the client
 * and its customer service use), then the case id, flow, country, age, risk and why it is in
 * review, so that a reviewer never decides a case they named by eight characters of an id.
 */
/** `title`: the window's title (the task, never the reference: it stays in the browser's history). */
export function CaseHeader({ data, title }: { data: ReviewCase; title: string }) {
  const { t, locale, dateTime } = useI18n();
  const { task, case: c } = data;
  return (
    <header className="case-header">
      <PageTitle text={title}>
        <span className="case-header-ref">{c.external_ref ?? t('case.noReference')}</span>
        <span className="case-header-task small muted">
          {t('case.title', { id: '' })}
          <span className="mono">{task.id}</span>
        </span>
      </PageTitle>
      <dl className="case-ident">
        <div>
          <dt>{t('case.caseId')}</dt>
          <dd className="mono case-id">{c.id}</dd>
        </div>
        <div>
          <dt>{t('case.flow')}</dt>
          <dd>{`${c.flow_name} v${c.flow_version}`}</dd>
        </div>
        <div>
          <dt>{t('case.country')}</dt>
          <dd>{c.country}</dd>
        </div>
        <div>
          <dt>{t('case.age')}</dt>
          <dd>
            <time dateTime={c.created_at} title={dateTime(c.created_at)}>
              {caseAge(c.created_at, Date.now(), locale)}
            </time>
          </dd>
        </div>
        <div>
          <dt>{t('case.risk')}</dt>
          <dd className={task.risk_score >= 70 ? 'risk risk-high' : 'risk'}>{task.risk_score}</dd>
        </div>
        {task.reasons.length > 0 ? (
          <div className="case-ident-wide">
            <dt>{t('case.reasons')}</dt>
            <dd>
              {task.reasons.map((r, i) => (
                <span key={r}>
                  {i > 0 ? ' ' : null}
                  <Coded code={r}>{checkReasonWords(r, locale)}</Coded>
                </span>
              ))}
            </dd>
          </div>
        ) : null}
      </dl>
    </header>
  );
}
