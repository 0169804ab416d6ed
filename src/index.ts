// Package root: the typed client.
export * from "./client/index.js";
