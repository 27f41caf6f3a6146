/**
 * The console frame's layout choices that a page may change: the log search page (B) can collapse
 * the top menu bar to give the records the whole height (spec 1.2 item 4).
 */
export class Layout {
  /** The top menu bar is hidden. */
  topMenuCollapsed = $state(false);
}
