import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { Empty, ErrorNotice, Loading, PageTitle } from '../../components/status.tsx';
import { useI18n } from '../../i18n/index.tsx';
import { useSession } from '../../session-context.tsx';
import { canManageFlows } from './flow-model.ts';
import { flowsQuery } from './flow-queries.ts';
import { TableHead } from '../../components/table-head.tsx';

/** The client's flows (administrators and supervisors): one line per flow, its active and latest version; administrators start a new one here. */
export function FlowsScreen() {
  const { t, dateTime } = useI18n();
  const flows = useQuery(flowsQuery());
  const canManage = canManageFlows(useSession().operator.role);
  return (
    <>
      <PageTitle text={t('flows.title')}>{t('flows.title')}</PageTitle>
      <p className="muted">{t('flows.intro')}</p>
      {canManage ? (
        <p>
          <Link to="/flows/new" className="button button-primary">
            {t('flows.new.action')}
          </Link>
        </p>
      ) : null}
      {flows.isPending ? (
        <Loading />
      ) : flows.isError ? (
        <ErrorNotice error={flows.error} onRetry={() => void flows.refetch()} />
      ) : flows.data.data.length === 0 ? (
        <Empty>{t('flows.empty')}</Empty>
      ) : (
        <div className="table-wrap" tabIndex={0} role="region" aria-labelledby="flows-caption">
          <table className="table table-cards">
            <caption id="flows-caption" className="visually-hidden">
              {t('flows.title')}
            </caption>
            <TableHead labels={[t('flows.col.name'), t('flows.col.active'), t('flows.col.latest'), t('flows.col.versions'), t('flows.col.updated')]} />
            <tbody>
              {flows.data.data.map((f) => (
                <tr key={f.name}>
                  <td data-label={t('flows.col.name')}>
                    <Link to="/flows/$name" params={{ name: f.name }} className="mono">
                      {f.name}
                    </Link>
                  </td>
                  <td data-label={t('flows.col.active')}>{f.active_version === null ? t('flows.none_active') : t('flows.version', { version: f.active_version })}</td>
                  <td data-label={t('flows.col.latest')}>{t('flows.version', { version: f.latest_version })}</td>
                  <td data-label={t('flows.col.versions')}>{f.versions}</td>
                  <td data-label={t('flows.col.updated')}>{dateTime(f.updated_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
