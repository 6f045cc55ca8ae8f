/**
 * The integration routes: every keyed route the spec gives no operator header (section 4: cases,
 * results, data, images, decision, erasure, access log, sessions), written from the spec rather
 * than read from the service's tables. A console credential is refused on each of them.
 */
export interface IntegrationTarget {
  caseId: string;
  sessionId: string;
}

export interface IntegrationRoute {
  name: string;
  signed?: boolean;
  request(target: IntegrationTarget): { method: string; url: string; body?: unknown };
}

export const INTEGRATION_ROUTES: IntegrationRoute[] = [
  { name: 'POST /v1/cases', signed: true, request: () => ({ method: 'POST', url: '/v1/cases', body: { flow_name: 'standard', country: 'FR' } }) },
  { name: 'GET /v1/cases/{case_id}', request: ({ caseId }) => ({ method: 'GET', url: `/v1/cases/${caseId}` }) },
  { name: 'GET /v1/cases/{case_id}/results', request: ({ caseId }) => ({ method: 'GET', url: `/v1/cases/${caseId}/results` }) },
  { name: 'GET /v1/cases/{case_id}/data', request: ({ caseId }) => ({ method: 'GET', url: `/v1/cases/${caseId}/data` }) },
  { name: 'GET /v1/cases/{case_id}/images/{piece_id}', request: ({ caseId }) => ({ method: 'GET', url: `/v1/cases/${caseId}/images/pc_01m7ym09t80f4fggxqxy1yr50c` }) },
  {
    name: 'POST /v1/cases/{case_id}/decision',
    signed: true,
    request: ({ caseId }) => ({ method: 'POST', url: `/v1/cases/${caseId}/decision`, body: { outcome: 'approve' } }),
  },
  { name: 'POST /v1/cases/{case_id}/erasure', signed: true, request: ({ caseId }) => ({ method: 'POST', url: `/v1/cases/${caseId}/erasure` }) },
  { name: 'GET /v1/cases/{case_id}/access-log', request: ({ caseId }) => ({ method: 'GET', url: `/v1/cases/${caseId}/access-log` }) },
  { name: 'POST /v1/sessions', signed: true, request: ({ caseId }) => ({ method: 'POST', url: '/v1/sessions', body: { case_id: caseId, locale: 'en' } }) },
  { name: 'GET /v1/sessions/{session_id}', request: ({ sessionId }) => ({ method: 'GET', url: `/v1/sessions/${sessionId}` }) },
];
