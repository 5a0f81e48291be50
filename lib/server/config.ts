// Configuration from the environment, read once. Names and defaults are PRODUCT.md's.
export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  baseUrl: string;
  smtpUrl?: string;
  alertFrom: string;
  adminEmail?: string;
  adminPassword?: string;
  bootstrapApiKey?: string;
  workerEnabled: boolean;
  /** Behind a reverse proxy: client addresses (a job's host) come from X-Forwarded-For. */
  trustProxy: boolean;
}

export const DEFAULT_DATABASE_URL = "file:./data/deadbolt.db";

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = Number(env.PORT ?? 3000);
  return {
    port,
    host: env.HOST ?? "0.0.0.0",
    databaseUrl: env.DATABASE_URL || DEFAULT_DATABASE_URL,
    baseUrl: (env.DEADBOLT_BASE_URL ?? `http://localhost:${port}`).replace(/\/+$/, ""),
    smtpUrl: env.SMTP_URL || undefined,
    alertFrom: env.ALERT_FROM ?? "deadbolt@localhost",
    adminEmail: env.DEADBOLT_ADMIN_EMAIL || undefined,
    adminPassword: env.DEADBOLT_ADMIN_PASSWORD || undefined,
    bootstrapApiKey: env.DEADBOLT_BOOTSTRAP_API_KEY || undefined,
    workerEnabled: (env.DEADBOLT_WORKER ?? "on").toLowerCase() !== "off",
    trustProxy: ["1", "true", "on"].includes((env.DEADBOLT_TRUST_PROXY ?? "").toLowerCase()),
  };
}
