#!/usr/bin/env node
// The `deadbolt` command. Commands that run where the database is (keys, serve) load the server's
// code; the rest (cli/) speak HTTP only.
import { register } from "tsx/esm/api";

register();
const [command] = process.argv.slice(2);
const serverSide = { keys: "../../scripts/keys.ts", serve: "../../server.ts" };
if (command in serverSide) {
  process.argv.splice(2, 1);
  await import(serverSide[command]);
} else {
  const { main } = await import("../main.ts");
  process.exitCode = await main(process.argv.slice(2));
}
