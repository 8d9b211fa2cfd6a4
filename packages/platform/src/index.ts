export { createLogger, type Logger } from "./logger.js";
export { readEnv, commonEnv, type CommonEnv } from "./env.js";
export { createRegistry, handleOps, READY_TIMEOUT_MS, type ReadyChecks, registerStoreProbes, startOpsServer, storesDown, prom } from "./ops.js";
export { resolveInfra, canConnect, freePort, serverUrlOf, databaseUrl, type Infra } from "./infra.js";
export { OutageLog, RepeatLog, within } from "./outage.js";
export { createRedis, redisPing } from "./redis.js";
export { type HostPort, parseHostPorts, type RedisSettings, redisOptions, redisSettingsOf, redisUrlParams } from "./redis-options.js";
export { admit, markStarted, markEnded, MAX_WINDOW_MS, DEFAULT_LOG_CAP, type TagLimit, type AdmissionCandidate } from "./admission.js";
export { Batcher, type BatcherOptions, KeyedBatchers } from "./batcher.js";
