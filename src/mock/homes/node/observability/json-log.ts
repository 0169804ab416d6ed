// `--log-format json`: the gateway's log lines as JSON objects through pino, one per line on stdout, for a log
// collector (the sandbox recipe turns it on). A request is an object of its own (`msg: "request"` with method, path,
// operation, status, ms, workspace and request id, already redacted); every other line (webhooks, state, violations)
// is its text as `msg`. `replica` (MOCK_REPLICA) names the process in every entry, so a sandbox's replicas can be told apart.
import pino from "pino";
import type { LogSink, RequestLog } from "../../../core/pipeline/log.js";

export interface JsonLog {
  line: LogSink;
  request: RequestLog;
}

export function jsonLog(replica?: string, destination: pino.DestinationStream = pino.destination({ dest: 1, sync: false })): JsonLog {
  const logger = pino({ base: { pid: process.pid, ...(replica ? { replica } : {}) }, timestamp: pino.stdTimeFunctions.isoTime }, destination);
  return {
    line: (text) => logger.info(text.replace(/^\d{4}-\d\d-\d\dT[\d:.]+Z /, "")), // pino stamps its own time
    request: (e) => logger.info({ method: e.method, path: e.url, operation: e.operation, status: e.status, ms: Math.round(e.ms * 10) / 10, workspace: e.workspace, request_id: e.requestId }, "request"),
  };
}
