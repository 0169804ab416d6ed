// The typed client of the audio, video and text analysis API: everything, for Node and for convenience. The
// pagination, SSE, WebSocket and webhook helpers are also entry points of their own (`@avt/api-contract/pagination`,
// `/streaming`, `/websocket`, `/webhooks`); either way, a bundler leaves out what an app does not import (the
// package has no side effects).
export { createClient, API_KEY_HEADER, AUTHORIZATION_HEADER } from "./client.js";
export type { ApiClient, ClientOptions, ResponseValidator, StreamUploadOptions, TokenSource } from "./client.js";
export type { Middleware, MiddlewareCallbackParams } from "openapi-fetch";
export {
  ApiError,
  ValidationError,
  RateLimitError,
  CredentialsError,
  TimeoutError,
  InsecureTransportError,
  StreamError,
  toApiError,
  unwrap,
  kindOfStatus,
} from "./errors.js";
export type { ApiErrorKind, DataOf, ErrorBody, FetchResult, RateLimitErrorBody, ValidationErrorBody, ValidationErrorItem } from "./errors.js";
export { readRateLimit, RATE_LIMIT_HEADERS } from "./rate-limit.js";
export type { RateLimit } from "./rate-limit.js";
export { pages, paginate } from "./pagination.js";
export { ANALYSIS_STREAM_EVENT_KINDS, eventSourceUrl, isFinalEvent, readEventStream, streamAnalysisEvents, toAnalysisStreamEvent } from "./streaming.js";
export type { AnalysisStreamEvent, AnalysisStreamEventKind, EventStreamOptions } from "./streaming.js";
export { DEFAULT_TIMEOUT_MS, RETRY_DEFAULTS } from "./options.js";
export type { CallOptions, RetryOptions } from "./options.js";
export type { FetchFn } from "./transport.js";
export { systemTimers } from "./timers.js";
export type { Timers } from "./timers.js";
export type {
  ClientMethod,
  HttpMethod,
  ListEnvelope,
  ListItem,
  ListPage,
  ListPath,
  MethodOf,
  PathsWith,
  WebSocketParams,
  WebSocketPath,
  components,
  paths,
} from "./types.js";
export {
  signWebhookPayload,
  verifyWebhookSignature,
  WebhookVerificationError,
  WEBHOOK_HEADERS,
  WEBHOOK_TOLERANCE_SECONDS,
} from "./webhooks.js";
export type {
  SignWebhookOptions,
  SignedWebhook,
  VerifyWebhookOptions,
  WebhookHeaders,
  WebhookPayload,
  WebhookVerificationFailure,
} from "./webhooks.js";
export { isLoopbackHost, openWebSocket, redactToken, TOKEN_QUERY_PARAM, webSocketUrl, whenOpen } from "./websocket.js";
export type { WebSocketConstructor, WebSocketInit, WebSocketOptions } from "./websocket.js";
