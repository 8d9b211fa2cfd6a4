import Joi from "joi";
import { type CommonEnv, commonEnv, readEnv } from "@ttr/platform";

export interface ApiEnv extends CommonEnv {
  PORT: number;
  HOST: string;
  DB_POOL_SIZE: number;
}

export function loadEnv(env: NodeJS.ProcessEnv = process.env): ApiEnv {
  return readEnv<ApiEnv>(
    Joi.object({
      ...commonEnv,
      /** port of the public API, the session API and the dashboard */
      PORT: Joi.number().port().default(8080),
      /** interface to listen on */
      HOST: Joi.string().default("0.0.0.0"),
      /** PostgreSQL connections this process may open */
      DB_POOL_SIZE: Joi.number().integer().min(1).max(200).default(20),
    }),
    env,
  );
}
