/**
 * The points of human's 468-point face mesh (MediaPipe's topology) kept on each face for the
 * motion checks: enough spread in depth to show parallax when a real head turns, few enough to
 * cost nothing to keep and fit. Chosen because the mesh places them steadily from frame to frame
 * and because they sit at different depths of a real head:
 *  - the nose (tip, bridge, base, wings): the points furthest forward;
 *  - the eye corners (inner and outer) and the eyebrows: the middle plane, and the inter-ocular
 *    distance every planarity figure is divided by;
 *  - the mouth corners and lips, the chin and the cheekbones;
 *  - the face outline (forehead to chin along both sides): the points furthest back, whose image
 *    slides over the head's silhouette when it turns. On a print or a screen they are drawn on the
 *    same plane as the nose, which is what the planarity measure (planarity.ts) relies on.
 */
export const LANDMARK_MESH_INDICES = [
  // nose: tip, below the tip, base, bridge (two), wings
  1, 4, 2, 6, 168, 197, 98, 327,
  // eyes: outer and inner corners (person's right eye is on the image's left), eyebrows
  33, 133, 362, 263, 105, 334,
  // mouth corners, upper and lower lip, chin, cheekbones
  61, 291, 0, 17, 152, 50, 280,
  // outline: forehead, then down the image's right side to the chin, then up the left side
  10, 338, 297, 332, 284, 251, 389, 356, 454, 323, 361, 288, 397, 365, 379, 378, 400, 377,
  148, 176, 149, 150, 136, 172, 58, 132, 93, 234, 127, 162, 21, 54, 103, 67, 109,
] as const;

/** Where the eye corners sit in the landmark list (outer and inner of each eye). */
export const EYE_CORNERS = {
  first: [LANDMARK_MESH_INDICES.indexOf(33), LANDMARK_MESH_INDICES.indexOf(133)],
  second: [LANDMARK_MESH_INDICES.indexOf(362), LANDMARK_MESH_INDICES.indexOf(263)],
} as const;

export type Landmark = [number, number];

/** The kept points of a mesh, rounded to tenths of a pixel (the mesh is not more precise than that). */
export function pickLandmarks(mesh: ReadonlyArray<readonly [number, number, number?]>): Landmark[] {
  return LANDMARK_MESH_INDICES.map((i) => {
    const p = mesh[i];
    if (!p) throw new Error(`face mesh has no point ${i}`);
    return [Math.round(p[0] * 10) / 10, Math.round(p[1] * 10) / 10];
  });
}
