import type { ReactNode } from 'react';

/** A table's header row: one column header per label, in order (labels are already translated). */
export function TableHead({ labels }: { labels: readonly ReactNode[] }) {
  return (
    <thead>
      <tr>
        {labels.map((label, i) => (
          <th key={i} scope="col">
            {label}
          </th>
        ))}
      </tr>
    </thead>
  );
}
