/** The search index's shape, shared by the build (which fills it) and the page's script (which loads it). */
export interface SearchDocument {
  /** The site address, with the section's anchor. */
  id: string;
  /** Page title, and the section's heading when it is one. */
  title: string;
  text: string;
  /** The first words of the section, shown under a result. */
  excerpt: string;
}

export const SEARCH_OPTIONS = {
  fields: ['title', 'text'],
  storeFields: ['title', 'excerpt'],
  searchOptions: { boost: { title: 3 }, prefix: true, fuzzy: 0.15, combineWith: 'AND' as const },
};
