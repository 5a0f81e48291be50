-- CreateTable
CREATE TABLE "Job" (
    "id" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "tags" TEXT NOT NULL DEFAULT '[]',
    "scheduleKind" TEXT NOT NULL,
    "cronExpr" TEXT,
    "timezone" TEXT NOT NULL DEFAULT 'UTC',
    "everySeconds" INTEGER,
    "graceSeconds" INTEGER NOT NULL,
    "minRuntimeSeconds" INTEGER,
    "maxRuntimeSeconds" INTEGER,
    "leaseTtlSeconds" INTEGER NOT NULL,
    "failureThreshold" INTEGER NOT NULL DEFAULT 1,
    "recoveryThreshold" INTEGER NOT NULL DEFAULT 1,
    "paused" BOOLEAN NOT NULL DEFAULT false,
    "pingKey" TEXT NOT NULL,
    "lastPingAt" TIMESTAMP(3),
    "lastStartedAt" TIMESTAMP(3),
    "lastFinishedAt" TIMESTAMP(3),
    "lastOutcome" TEXT,
    "consecutiveFailures" INTEGER NOT NULL DEFAULT 0,
    "consecutiveSuccesses" INTEGER NOT NULL DEFAULT 0,
    "checkAt" TIMESTAMP(3),
    "openIncidents" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Job_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Run" (
    "id" TEXT NOT NULL,
    "jobId" TEXT NOT NULL,
    "slot" TIMESTAMP(3),
    "claimedSlot" TIMESTAMP(3),
    "source" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "holder" TEXT,
    "host" TEXT,
    "rid" TEXT,
    "leaseName" TEXT,
    "leaseToken" TEXT,
    "fencingToken" INTEGER,
    "leaseExpiresAt" TIMESTAMP(3),
    "leaseLostAt" TIMESTAMP(3),
    "idempotencyKey" TEXT,
    "requestId" TEXT,
    "exitCode" INTEGER,
    "output" TEXT,
    "startedAt" TIMESTAMP(3) NOT NULL,
    "finishedAt" TIMESTAMP(3),
    "durationMs" INTEGER,
    "checkAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Run_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Ping" (
    "id" TEXT NOT NULL,
    "jobId" TEXT NOT NULL,
    "runId" TEXT,
    "kind" TEXT NOT NULL,
    "exitCode" INTEGER,
    "body" TEXT,
    "bodyBytes" INTEGER NOT NULL DEFAULT 0,
    "rid" TEXT,
    "method" TEXT NOT NULL,
    "sourceIp" TEXT,
    "userAgent" TEXT,
    "receivedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Ping_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Lease" (
    "name" TEXT NOT NULL,
    "holderToken" TEXT,
    "holder" TEXT,
    "fencingToken" INTEGER NOT NULL DEFAULT 0,
    "ttlSeconds" INTEGER,
    "acquiredAt" TIMESTAMP(3),
    "renewedAt" TIMESTAMP(3),
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "minHoldUntil" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Lease_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "LeaseEvent" (
    "id" TEXT NOT NULL,
    "leaseName" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "holder" TEXT,
    "fencingToken" INTEGER,
    "runId" TEXT,
    "detail" TEXT,
    "at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "LeaseEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Incident" (
    "id" TEXT NOT NULL,
    "jobId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "openKey" TEXT,
    "summary" TEXT NOT NULL,
    "evidence" TEXT NOT NULL DEFAULT '{}',
    "openedAt" TIMESTAMP(3) NOT NULL,
    "resolvedAt" TIMESTAMP(3),
    "remindedAt" TIMESTAMP(3),

    CONSTRAINT "Incident_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Channel" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "secret" TEXT,
    "format" TEXT NOT NULL DEFAULT 'json',
    "remindEveryMinutes" INTEGER,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Channel_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "JobChannel" (
    "jobId" TEXT NOT NULL,
    "channelId" TEXT NOT NULL,

    CONSTRAINT "JobChannel_pkey" PRIMARY KEY ("jobId","channelId")
);

-- CreateTable
CREATE TABLE "Notification" (
    "id" TEXT NOT NULL,
    "incidentId" TEXT,
    "channelId" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL,
    "sentAt" TIMESTAMP(3),

    CONSTRAINT "Notification_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "DeliveryAttempt" (
    "id" TEXT NOT NULL,
    "notificationId" TEXT NOT NULL,
    "ok" BOOLEAN NOT NULL,
    "responseStatus" INTEGER,
    "error" TEXT,
    "durationMs" INTEGER NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "DeliveryAttempt_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "User" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "passwordHash" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "User_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Session" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Session_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApiKey" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "keyHash" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "lastUsedAt" TIMESTAMP(3),
    "revokedAt" TIMESTAMP(3),

    CONSTRAINT "ApiKey_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Job_slug_key" ON "Job"("slug");

-- CreateIndex
CREATE UNIQUE INDEX "Job_pingKey_key" ON "Job"("pingKey");

-- CreateIndex
CREATE INDEX "Job_checkAt_idx" ON "Job"("checkAt");

-- CreateIndex
CREATE INDEX "Run_jobId_id_idx" ON "Run"("jobId", "id");

-- CreateIndex
CREATE INDEX "Run_jobId_rid_idx" ON "Run"("jobId", "rid");

-- CreateIndex
CREATE INDEX "Run_jobId_slot_idx" ON "Run"("jobId", "slot");

-- CreateIndex
CREATE INDEX "Run_jobId_outcome_idx" ON "Run"("jobId", "outcome");

-- CreateIndex
CREATE INDEX "Run_checkAt_idx" ON "Run"("checkAt");

-- CreateIndex
CREATE UNIQUE INDEX "Run_jobId_claimedSlot_key" ON "Run"("jobId", "claimedSlot");

-- CreateIndex
CREATE UNIQUE INDEX "Run_jobId_requestId_key" ON "Run"("jobId", "requestId");

-- CreateIndex
CREATE INDEX "Ping_jobId_id_idx" ON "Ping"("jobId", "id");

-- CreateIndex
CREATE INDEX "Ping_runId_idx" ON "Ping"("runId");

-- CreateIndex
CREATE INDEX "Lease_expiresAt_idx" ON "Lease"("expiresAt");

-- CreateIndex
CREATE INDEX "LeaseEvent_leaseName_id_idx" ON "LeaseEvent"("leaseName", "id");

-- CreateIndex
CREATE INDEX "LeaseEvent_runId_idx" ON "LeaseEvent"("runId");

-- CreateIndex
CREATE UNIQUE INDEX "Incident_openKey_key" ON "Incident"("openKey");

-- CreateIndex
CREATE INDEX "Incident_status_openedAt_idx" ON "Incident"("status", "openedAt");

-- CreateIndex
CREATE INDEX "Incident_jobId_openedAt_idx" ON "Incident"("jobId", "openedAt");

-- CreateIndex
CREATE INDEX "JobChannel_channelId_idx" ON "JobChannel"("channelId");

-- CreateIndex
CREATE INDEX "Notification_status_nextAttemptAt_idx" ON "Notification"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "Notification_channelId_id_idx" ON "Notification"("channelId", "id");

-- CreateIndex
CREATE INDEX "DeliveryAttempt_notificationId_idx" ON "DeliveryAttempt"("notificationId");

-- CreateIndex
CREATE UNIQUE INDEX "User_email_key" ON "User"("email");

-- CreateIndex
CREATE INDEX "Session_userId_idx" ON "Session"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "ApiKey_keyHash_key" ON "ApiKey"("keyHash");

-- AddForeignKey
ALTER TABLE "Run" ADD CONSTRAINT "Run_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "Job"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Ping" ADD CONSTRAINT "Ping_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "Job"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Ping" ADD CONSTRAINT "Ping_runId_fkey" FOREIGN KEY ("runId") REFERENCES "Run"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LeaseEvent" ADD CONSTRAINT "LeaseEvent_leaseName_fkey" FOREIGN KEY ("leaseName") REFERENCES "Lease"("name") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Incident" ADD CONSTRAINT "Incident_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "Job"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "JobChannel" ADD CONSTRAINT "JobChannel_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "Job"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "JobChannel" ADD CONSTRAINT "JobChannel_channelId_fkey" FOREIGN KEY ("channelId") REFERENCES "Channel"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Notification" ADD CONSTRAINT "Notification_incidentId_fkey" FOREIGN KEY ("incidentId") REFERENCES "Incident"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Notification" ADD CONSTRAINT "Notification_channelId_fkey" FOREIGN KEY ("channelId") REFERENCES "Channel"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DeliveryAttempt" ADD CONSTRAINT "DeliveryAttempt_notificationId_fkey" FOREIGN KEY ("notificationId") REFERENCES "Notification"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Session" ADD CONSTRAINT "Session_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;
