import { useState, type MouseEventHandler, type ReactNode } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';
import { useI18n } from '../i18n/index.tsx';
import { Empty, ErrorNotice, Loading } from './status.tsx';
import { TableHead } from './table-head.tsx';

/** A page of a cursor-paged list route of the service (reviews queue, case search). */
interface CursorPage<T> {
  data: T[];
  has_more: boolean;
  next_cursor?: string | null;
}

/**
 * The cursors of the pages seen so far. They stay in memory, never in the address: a cursor
 * names a task or a case, which has no place in a URL that ends up in history and logs.
 */
export function useCursorPages() {
  const [cursors, setCursors] = useState<string[]>([]);
  return {
    cursor: cursors.at(-1),
    beyondFirst: cursors.length > 0,
    first: () => setCursors([]),
    next: (cursor: string) => setCursors([...cursors, cursor]),
  };
}

type CursorPages = ReturnType<typeof useCursorPages>;

interface PagedTableProps<T> {
  query: UseQueryResult<CursorPage<T>>;
  pages: CursorPages;
  /** What an empty page says. */
  empty: string;
  /** The table's name for screen readers (and the id its scrolling region is labelled by). */
  caption: string;
  captionId: string;
  /** Column headers, in order. */
  columns: string[];
  className?: string;
  onBodyClick?: MouseEventHandler<HTMLElement>;
  row: (item: T) => ReactNode;
}

/**
 * A list read from the service in all its states: loading, failed (with retry), empty, or a
 * table whose rows turn into cards on a narrow screen (each cell's data-label names its column),
 * then the pager. The table scrolls in a labelled, focusable region so a keyboard can scroll it.
 */
export function PagedTable<T>({ query, pages, empty, caption, captionId, columns, className, onBodyClick, row }: PagedTableProps<T>) {
  const { t } = useI18n();
  const body = query.isPending ? (
    <Loading />
  ) : query.isError ? (
    <ErrorNotice error={query.error} onRetry={() => void query.refetch()} />
  ) : query.data.data.length === 0 ? (
    <Empty>{empty}</Empty>
  ) : (
    <div className="table-wrap" tabIndex={0} role="region" aria-labelledby={captionId}>
      <table className={className ? `table table-cards ${className}` : 'table table-cards'}>
        <caption id={captionId} className="visually-hidden">
          {caption}
        </caption>
        <TableHead labels={columns} />
        <tbody onClick={onBodyClick}>{query.data.data.map(row)}</tbody>
      </table>
    </div>
  );
  const next = query.data?.has_more ? query.data.next_cursor : null;
  return (
    <>
      {body}
      <div className="pager">
        {pages.beyondFirst ? (
          <button type="button" className="button" onClick={pages.first}>
            {t('queue.first')}
          </button>
        ) : null}
        {next ? (
          <button type="button" className="button" onClick={() => pages.next(next)}>
            {t('queue.next')}
          </button>
        ) : null}
      </div>
    </>
  );
}
