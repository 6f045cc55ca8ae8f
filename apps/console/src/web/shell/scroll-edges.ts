import { useEffect, type RefObject } from 'react';

/**
 * Marks a sideways-scrolling element with where more of it lies: `data-more` is `end` (more to
 * the right), `start` (more to the left), `both`, or absent when everything is in view. The
 * styles draw a fade and an arrow on those sides, so that a navigation wider than a phone says
 * that it scrolls. Set on the element itself, without a render, at each scroll and resize.
 */
export function useScrollEdges(ref: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const mark = () => {
      const room = el.scrollWidth - el.clientWidth;
      // A pixel of slack: zoomed screens report fractional scroll positions.
      const before = el.scrollLeft > 1;
      const after = el.scrollLeft < room - 1;
      const more = before && after ? 'both' : after ? 'end' : before ? 'start' : null;
      if (more) el.setAttribute('data-more', more);
      else el.removeAttribute('data-more');
    };
    mark();
    el.addEventListener('scroll', mark, { passive: true });
    const resized = new ResizeObserver(mark);
    resized.observe(el);
    return () => {
      el.removeEventListener('scroll', mark);
      resized.disconnect();
    };
  }, [ref]);
}
