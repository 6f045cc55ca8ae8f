import { stringify } from 'csv-stringify/sync';
import { usageCsv, type ExportedUnit } from '@idv/db';
import { parsePeriod } from '@idv/domain';
import type { App, AppContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { sendCsv } from '../../http/csv-stream.ts';
import { VALIDATION_ERRORS, errorResponses } from '../../schemas/common.ts';
import { ALSO_CONSOLE_ROUTE_ERRORS } from '../operators/errors.ts';
import { UsageQuery } from './schemas.ts';

/** The export's columns, in order: nothing but codes, quantities, instants and case ids. */
const EXPORT_COLUMNS: (keyof ExportedUnit)[] = ['occurred_at', 'service', 'quantity', 'case_id'];

const CSV_RESPONSE = {
  description:
    'RFC 4180 CSV in UTF-8 (CRLF line ends), a header row `occurred_at,service,quantity,case_id`, then one line per measured unit, by instant; ' +
    'Content-Disposition names the file usage-<period>-<environment>.csv',
  content: { 'text/csv': { schema: { type: 'string' } } },
};

export function registerExportUsage(app: App, ctx: AppContext): void {
  app.get(
    '/v1/usage/export',
    {
      // Also the console's Usage and contract screen: the console credential naming an operator who may read usage.
      config: { operator: { ability: 'readUsage', alsoIntegration: true } },
      schema: {
        operationId: 'exportUsage',
        tags: ['usage'],
        summary: "Export a month's usage (CSV)",
        description: 'Every unit measured in one month, one CSV line each, with the case identifier returned at case opening; no personal data. Streamed',
        querystring: UsageQuery,
        response: { 200: CSV_RESPONSE, ...errorResponses(...VALIDATION_ERRORS, ...ALSO_CONSOLE_ROUTE_ERRORS) },
      },
    },
    async (req, reply) => {
      const { tenant } = authOf(req);
      const period = parsePeriod(req.query.period)!;
      // One CSV text per page where this process formats it (the library's synchronous form on a
      // page's rows): a few hundred chunks rather than a million rows, each with its own promise.
      const format = { columns: EXPORT_COLUMNS, record_delimiter: 'windows' } as const;
      const chunks = usageCsv(ctx.db, tenant, period, (rows, header) => stringify(rows, { ...format, header }));
      return sendCsv(req, reply, chunks, `usage-${period.period}-${tenant.environment}.csv`, 'usage');
    },
  );
}
