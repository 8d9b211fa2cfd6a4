// IPv6 addresses as their eight 16-bit groups, for the executor's address
// vetting (NAT64) and the api's per-client budgets (a client's /64).

/** Eight 16-bit groups of a valid IPv6 address (net.isIP already said it is one). */
export function expandIPv6(ip: string): number[] | null {
  let text = ip;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(":");
  if (text.includes(".", lastColon)) {
    const octets = text.slice(lastColon + 1).split(".").map(Number);
    tail.push((octets[0]! << 8) | octets[1]!, (octets[2]! << 8) | octets[3]!);
    text = `${text.slice(0, lastColon + 1)}0`; // placeholder group, dropped below
  }
  const [left = "", right] = text.split("::");
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((g) => Number.parseInt(g, 16)));
  const head = parse(left);
  const rest = right === undefined ? [] : parse(right);
  if (tail.length > 0) (rest.length > 0 ? rest : head).pop();
  const missing = 8 - head.length - rest.length - tail.length;
  if (missing < 0 || (right === undefined && missing !== 0)) return null;
  return [...head, ...new Array<number>(missing).fill(0), ...rest, ...tail];
}
