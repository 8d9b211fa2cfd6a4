// Where focus goes when the control it should return to is gone: removed
// (a deleted policy's card, the Edit button of a trigger that was sent) or
// disabled (Replay now once replayed). Focus then moves to the page's main
// region (tabIndex -1, components/Layout.tsx) instead of falling to <body>,
// where a keyboard or screen reader user would start over from the top.
export function focusOrMain(target: Element | null): void {
  const usable = target instanceof HTMLElement && target.isConnected && !target.matches(":disabled");
  const to = usable ? target : document.getElementById("main");
  if (to !== null && to !== document.activeElement) to.focus();
}
