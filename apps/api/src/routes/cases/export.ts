import { stringify } from 'csv-stringify/sync';
import { everyCase, type CaseRow } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { sendCsv } from '../../http/csv-stream.ts';
import { presentResults } from '../../presenters/case.ts';
import { CaseExportQuerySchema } from '../../schemas/case.ts';
import { VALIDATION_ERRORS, errorResponses } from '../../schemas/common.ts';
import { ALSO_CONSOLE_ROUTE_ERRORS } from '../operators/errors.ts';
import { caseFiltersOf } from './filters.ts';

/**
 * The export's columns, in order: identifiers, codes and instants. The client's external
 * reference is left out: a file leaves the service's access control, and the reference is the
 * client's key to a person (docs/personal-data.md, "The client's reference").
 */
const EXPORT_COLUMNS = [
  'case_id',
  'created_at',
  'flow_name',
  'flow_version',
  'country',
  'status',
  'state',
  'outcome',
  'reason_code',
  'decided_at',
  'updated_at',
] as const;
type ExportedCase = Record<(typeof EXPORT_COLUMNS)[number], string | number | null>;

/** Rows read and formatted at a time. */
const PAGE = 500;

function exported(row: CaseRow): ExportedCase {
  const { decision } = presentResults(row);
  return {
    case_id: row.id,
    created_at: row.createdAt.toISOString(),
    flow_name: row.flowName,
    flow_version: row.flowVersion,
    country: row.country,
    status: row.status,
    state: row.state,
    outcome: decision?.outcome ?? null,
    reason_code: decision?.reason_code ?? null,
    decided_at: decision?.decided_at ?? null,
    updated_at: row.updatedAt.toISOString(),
  };
}

const CSV_RESPONSE = {
  description:
    `RFC 4180 CSV in UTF-8 (CRLF line ends), a header row \`${EXPORT_COLUMNS.join(',')}\`, then one line per case, newest first; ` +
    'empty fields where a case has no decision yet. Content-Disposition names the file cases-<environment>.csv',
  content: { 'text/csv': { schema: { type: 'string' } } },
};

export function registerExportCases(app: App, ctx: AppContext): void {
  app.get(
    '/v1/cases/export',
    {
      // As the case list: with the console credential, an operator's export within their clearance.
      config: { operator: { ability: 'review', alsoIntegration: true } },
      schema: {
        operationId: 'exportCases',
        tags: ['cases'],
        summary: 'Export cases as CSV',
        description:
          'The cases the list’s filters select, one CSV line each: identifiers, flow, country, status and state, outcome and reason. ' +
          'No personal data (nor the external reference). Streamed',
        querystring: CaseExportQuerySchema,
        response: { 200: CSV_RESPONSE, ...errorResponses(...VALIDATION_ERRORS, ...ALSO_CONSOLE_ROUTE_ERRORS) },
      },
    },
    async (req, reply) => {
      const { tenant } = authOf(req);
      const pages = everyCase(ctx.db, tenant, { ...caseFiltersOf(req.query, req), limit: PAGE });
      const format = { columns: [...EXPORT_COLUMNS], record_delimiter: 'windows' } as const;
      async function* chunks(): AsyncGenerator<string> {
        yield stringify([], { ...format, header: true });
        for await (const page of pages) yield stringify(page.map(exported), { ...format, header: false });
      }
      return sendCsv(req, reply, chunks(), `cases-${tenant.environment}.csv`, 'case');
    },
  );
}
