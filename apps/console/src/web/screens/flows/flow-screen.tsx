import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { ErrorNotice, Loading, PageTitle } from '../../components/status.tsx';
import { useI18n } from '../../i18n/index.tsx';
import { useSession } from '../../session-context.tsx';
import { canManageFlows } from './flow-model.ts';
import { flowQuery } from './flow-queries.ts';
import { VersionDiff } from './version-diff.tsx';
import { VersionEditor } from './version-editor.tsx';
import { TableHead } from '../../components/table-head.tsx';

/** One flow: its versions, the open one in the editor (the newest unless chosen), and a diff between two. */
export function FlowScreen({ name, version }: { name: string; version?: number }) {
  const { t, dateTime } = useI18n();
  const canManage = canManageFlows(useSession().operator.role);
  const flow = useQuery(flowQuery(name));
  const title = t('flows.flow_title', { name });
  if (flow.isPending) return <Loading />;
  if (flow.isError) return <ErrorNotice error={flow.error} onRetry={() => void flow.refetch()} />;
  const versions = flow.data.versions;
  const open = versions.find((v) => v.version === version) ?? versions[0];
  return (
    <>
      <PageTitle text={title}>{title}</PageTitle>
      <p>
        <Link to="/flows">{t('flows.back')}</Link>
      </p>
      <section aria-labelledby="versions-title">
        <h2 id="versions-title">{t('flows.versions')}</h2>
        <div className="table-wrap" tabIndex={0} role="region" aria-labelledby="versions-title">
          <table className="table table-cards">
            <caption className="visually-hidden">{t('flows.versions')}</caption>
            <TableHead labels={[t('flows.col.version'), t('flows.col.status'), t('flows.col.created'), t('flows.col.activated')]} />
            <tbody>
              {versions.map((v) => (
                <tr key={v.version} className={v.version === open.version ? 'row-open' : undefined}>
                  <td data-label={t('flows.col.version')}>
                    <Link to="/flows/$name" params={{ name }} search={{ version: v.version }} aria-current={v.version === open.version ? 'true' : undefined}>
                      {t('flows.version', { version: v.version })}
                    </Link>
                  </td>
                  <td data-label={t('flows.col.status')}>
                    <span className={`tag flow-status-${v.status}`}>{t(`flows.status.${v.status}`)}</span>
                  </td>
                  <td data-label={t('flows.col.created')}>{dateTime(v.created_at)}</td>
                  <td data-label={t('flows.col.activated')}>{v.activated_at ? dateTime(v.activated_at) : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <VersionEditor key={`${name}:${open.version}`} name={name} version={open} canManage={canManage} />
      {versions.length > 1 ? <VersionDiff versions={versions} /> : null}
    </>
  );
}
