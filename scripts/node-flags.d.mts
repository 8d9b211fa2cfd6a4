// Types of node-flags.mjs, for the tests that start a service as it runs in production.
export declare const NODE_FLAGS: { api: string[]; scheduler: string[]; executor: string[] };
