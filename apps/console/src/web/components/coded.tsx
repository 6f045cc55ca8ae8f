import type { ReactNode } from 'react';

/**
 * Plain words for a code of the service (a reason, a measure, a journal action), with the raw
 * code kept on hover for support: the title is also the element's accessible description, read
 * by screen readers after the words.
 */
export function Coded({ code, children, className }: { code: string; children: ReactNode; className?: string }) {
  return (
    <span className={className ? `coded ${className}` : 'coded'} title={code}>
      {children}
    </span>
  );
}
