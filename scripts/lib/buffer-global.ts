// Injected into the simulation's browser bundle (browser-bundle.ts): the `buffer` package's Buffer wherever the
// core names the global Buffer, which browsers lack.
export { Buffer } from "buffer";
