export { createLogger, type Logger } from "./logger.js";
export { readEnv, commonEnv } from "./env.js";
export { createRegistry, handleOps, startOpsServer, prom, type ReadyCheck } from "./ops.js";
export { resolveInfra, canConnect, freePort, serverUrlOf, databaseUrl, type Infra } from "./infra.js";
export { createRedis, redisPing } from "./redis.js";
