/** Tables of the news module. */
export type NewsTables = {};
