import type { ReactNode } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';
import type { Check, Piece } from '../../api/types.ts';
import { ErrorNotice, Loading, PageTitle } from '../../components/status.tsx';
import { Checks, Duplicates } from './checks.tsx';
import { AttackEvidence } from './attack-evidence.tsx';
import { CaseImages } from './images.tsx';

/** A panel's list of facts: one label and its value a row. */
export function Facts({ rows }: { rows: [label: string, value: ReactNode][] }) {
  return (
    <dl className="facts">
      {rows.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** What the case screen and the record show of a case's evidence: images, challenge frames and attack reasons, the subject, checks, duplicates. */
export function CaseEvidence({ c, urlOf, subject }: { c: { pieces: Piece[]; checks: Check[]; duplicates: string[] }; urlOf(pieceId: string): string; subject: ReactNode }) {
  return (
    <div className="case-main">
      <CaseImages pieces={c.pieces} urlOf={urlOf} />
      <AttackEvidence pieces={c.pieces} checks={c.checks} urlOf={urlOf} />
      {subject}
      <Checks checks={c.checks} />
      <Duplicates ids={c.duplicates} />
    </div>
  );
}

/** The screen while its query loads or after it failed (the title and a retry), or null once it has data. */
export function pendingOrFailed(query: UseQueryResult<unknown>, title: string): ReactNode | null {
  if (query.isPending) return <Loading />;
  if (query.isError)
    return (
      <>
        <PageTitle text={title}>{title}</PageTitle>
        <ErrorNotice error={query.error} onRetry={() => void query.refetch()} />
      </>
    );
  return null;
}
