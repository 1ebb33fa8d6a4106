#!/usr/bin/env node
// The production program, the one the image runs: the operator (`run`) and the tools for a
// real cluster and control plane. Each subcommand lives in its own module and is loaded only
// when used, so that `agent-operator crds` does not pay for the operator. The demo and the
// emulators are in the development program, src/dev-cli.ts.
import {
  dispatch as dispatchWith,
  isMainModule,
  runCommandLine,
  type Output,
} from './command-line/dispatch.js';
import { PRODUCTION_COMMANDS } from './command-line/production-commands.js';

export type { CommandModule, Output } from './command-line/dispatch.js';

export function dispatch(argv: string[], output?: Output): Promise<number> {
  return dispatchWith(PRODUCTION_COMMANDS, argv, output);
}

if (isMainModule(import.meta.url)) runCommandLine(PRODUCTION_COMMANDS);
