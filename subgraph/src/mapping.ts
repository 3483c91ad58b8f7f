// The one mapping file of every data source: graph build compiles it once and each data source
// uses the handlers its events need. Handlers live in mappings/, one module per contract, plus
// common.ts for the OpenZeppelin events several contracts emit alike.
export * from "./mappings/common";
export * from "./mappings/config";
export * from "./mappings/disputes";
export * from "./mappings/keyrings";
export * from "./mappings/registry";
export * from "./mappings/reputation";
export * from "./mappings/stakes";
export * from "./mappings/token";
export * from "./mappings/vault";
