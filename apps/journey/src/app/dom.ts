/** A tiny element builder: the journey has no framework (small, fast on a slow phone). */
type Child = Node | string | number | null | undefined | false;
type Props = Record<string, unknown>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props?: Props | null, ...children: (Child | Child[])[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      el.addEventListener(name.slice(2).toLowerCase(), value as EventListener);
    } else if (name === 'class') {
      el.className = String(value);
    } else if (name in el && !name.startsWith('aria') && !name.startsWith('data')) {
      (el as unknown as Record<string, unknown>)[name] = value;
    } else {
      el.setAttribute(name, value === true ? '' : String(value));
    }
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

let uid = 0;
/** A unique id for label/aria links. */
export const nextId = (prefix: string) => `${prefix}-${++uid}`;

/**
 * Calls `leave` once `element` is taken out of its screen's <main> (the person moved on, or the
 * screen was redrawn): a camera screen stops its stream and timers then, whoever replaced it.
 */
export function onDetached(element: HTMLElement, leave: () => void): void {
  const root = element.closest('main');
  if (!root) return;
  const observer = new MutationObserver(() => {
    if (!element.isConnected) {
      leave();
      observer.disconnect();
    }
  });
  observer.observe(root, { childList: true });
}
