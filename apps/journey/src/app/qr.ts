import { encode } from 'uqr';

/**
 * Shared by the handoff screen and the wallet's cross-device screen, each its own chunk: this
 * module and the QR code library become one more chunk that only those two download.
 */

const SVG = 'http://www.w3.org/2000/svg';

/**
 * The QR code of a link, drawn here: uqr computes the modules (nothing is fetched), and each row's
 * runs of dark modules become one SVG path, crisp at any size, on a white square with the quiet
 * zone the standard asks for (four modules).
 */
export function qrCode(text: string, label: string): SVGSVGElement {
  const { data, size } = encode(text, { ecc: 'M', border: 4 });
  let d = '';
  data.forEach((row, y) => {
    for (let x = 0; x < size; x++) {
      if (!row[x]) continue;
      let w = 1;
      while (x + w < size && row[x + w]) w++;
      d += `M${x} ${y}h${w}v1h-${w}z`;
      x += w - 1;
    }
  });
  const svg = document.createElementNS(SVG, 'svg');
  for (const [name, value] of Object.entries({ viewBox: `0 0 ${size} ${size}`, role: 'img', 'aria-label': label, class: 'qr', 'shape-rendering': 'crispEdges' })) {
    svg.setAttribute(name, value);
  }
  const background = document.createElementNS(SVG, 'rect');
  background.setAttribute('width', String(size));
  background.setAttribute('height', String(size));
  background.setAttribute('fill', '#fff');
  const modules = document.createElementNS(SVG, 'path');
  modules.setAttribute('d', d);
  modules.setAttribute('fill', '#000');
  svg.append(background, modules);
  return svg;
}
