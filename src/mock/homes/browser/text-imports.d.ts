// A file imported as text (esbuild's `with { type: "text" }`): browser.ts bundles generated/openapi.yaml so
// /openapi.yaml answers its exact bytes there too.
declare module "*.yaml" {
  const text: string;
  export default text;
}
