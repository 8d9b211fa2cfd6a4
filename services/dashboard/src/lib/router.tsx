// A small history-API router: the api answers index.html for every path
// under /dashboard, so each page has a real, reloadable URL.
import { type AnchorHTMLAttributes, type MouseEvent, useEffect, useState } from "react";

/** "/dashboard/" from Vite's `base`. */
const BASE = import.meta.env.BASE_URL;

export interface Location {
  /** path inside the app, always starting with "/" ("/" is the overview) */
  path: string;
  query: URLSearchParams;
}

function current(): Location {
  const full = window.location.pathname;
  const inside = full.startsWith(BASE) ? full.slice(BASE.length - 1) : full === BASE.slice(0, -1) ? "/" : full;
  return { path: inside || "/", query: new URLSearchParams(window.location.search) };
}

const listeners = new Set<() => void>();
window.addEventListener("popstate", () => {
  for (const l of listeners) l();
});

export function href(to: string): string {
  return BASE + to.replace(/^\//, "");
}

export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  const url = href(to);
  if (url === window.location.pathname + window.location.search) return;
  if (opts.replace) window.history.replaceState(null, "", url);
  else window.history.pushState(null, "", url);
  for (const l of listeners) l();
}

export function useLocation(): Location {
  const [loc, setLoc] = useState(current);
  useEffect(() => {
    const update = () => setLoc(current());
    listeners.add(update);
    return () => {
      listeners.delete(update);
    };
  }, []);
  return loc;
}

type LinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, "href"> & { to: string };

/** An ordinary link (open in new tab works) that navigates in place on a plain click. */
export function Link({ to, onClick, ...rest }: LinkProps) {
  const go = (e: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return <a href={href(to)} onClick={go} {...rest} />;
}
