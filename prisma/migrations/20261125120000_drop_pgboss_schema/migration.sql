-- Background jobs no longer use pg-boss (src/jobs.ts polls Timbre's own tables under leases):
-- the schema pg-boss created at run time, with its queues and archived jobs, goes.
DROP SCHEMA IF EXISTS pgboss CASCADE;
