// The repair-loop harness's wire protocol. You need not touch this file.
//
// `kata grade` plays the orders server, the model and a virtual clock, and talks to client.mjs in
// JSON lines over stdin/stdout. For every scenario it sends, this shim calls your
//
//     async callWithRepair(invoke, propose, sleep, log, request, policy) -> { action, category, result }
//
// with four functions that do the talking:
//
//     await invoke(request)            -> the tool result's payload (an object: the typed error or the success)
//     await propose(request, feedback) -> the model's next arguments (an object), given the request
//                                         that failed and the payload that said why
//     await sleep(seconds)             -> resolves when the virtual clock has advanced; no real time passes
//     log(category, message)           -> records a log line (the grader checks those with category "unknown")
//
// and reports what you return as the scenario's outcome. action is one of "success", "abort",
// "exhausted"; category is the payload's category as you classified it ("unknown" when it had
// none you know, null for success); result is the last payload. (An array
// [action, category, result] is accepted too.)
//
// While the shim runs, console.log() and process.stdout.write() go to stderr, so a debugging
// print cannot break the protocol. An exception in callWithRepair prints its stack to stderr and
// ends the process with status 1: the grader fails that scenario, shows the stack, restarts the
// client and goes on.

import { createInterface } from "node:readline";

const ACTIONS = ["success", "abort", "exhausted"];

class ProtocolError extends Error {}
class EndOfInput extends Error {}

/** The protocol over stdin and the real stdout: send, and receive the next message. */
function channel(write) {
  const lines = createInterface({ input: process.stdin, crlfDelay: Infinity })[Symbol.asyncIterator]();
  const send = (message) =>
    new Promise((resolve) => {
      try {
        write(JSON.stringify(message) + "\n", () => resolve());
      } catch {
        resolve();
      }
    });
  const receive = async () => {
    for (let next = await lines.next(); !next.done; next = await lines.next()) {
      const raw = next.value;
      if (!raw.trim()) {
        continue;
      }
      let message;
      try {
        message = JSON.parse(raw);
      } catch (error) {
        throw new ProtocolError(`not a JSON line from the grader: ${JSON.stringify(raw.slice(0, 200))} (${error.message})`);
      }
      if (typeof message !== "object" || message === null || Array.isArray(message)) {
        throw new ProtocolError(`expected a JSON object from the grader, got ${raw.slice(0, 200)}`);
      }
      return message;
    }
    return null;
  };
  const expect = async (kind) => {
    const message = await receive();
    if (message === null) {
      throw new EndOfInput(`the grader closed the connection while we waited for "${kind}"`);
    }
    if (message.type !== kind) {
      throw new ProtocolError(`expected a "${kind}" message, got ${JSON.stringify(message)}`);
    }
    return message;
  };
  return { send, receive, expect };
}

async function play(ch, callWithRepair, scenario) {
  const invoke = async (request) => {
    await ch.send({ type: "invoke", request });
    return (await ch.expect("result")).result;
  };
  const propose = async (request, feedback) => {
    await ch.send({ type: "propose", request, feedback });
    return (await ch.expect("proposal")).arguments;
  };
  const sleep = async (seconds) => {
    await ch.send({ type: "sleep", seconds });
    await ch.expect("slept");
  };
  // No reply comes back; the line is queued in order with the next message.
  const log = (category, message) => void ch.send({ type: "log", category, message: String(message) });

  const outcome = await callWithRepair(invoke, propose, sleep, log, scenario.request, scenario.policy);
  const decided = Array.isArray(outcome) && outcome.length === 3
    ? { action: outcome[0], category: outcome[1], result: outcome[2] }
    : outcome;
  if (typeof decided !== "object" || decided === null || !("action" in decided)) {
    throw new TypeError(`callWithRepair must return { action, category, result }, got ${JSON.stringify(outcome)}`);
  }
  if (!ACTIONS.includes(decided.action)) {
    console.error(`callWithRepair returned action ${JSON.stringify(decided.action)}; expected one of ${ACTIONS.join(", ")}`);
  }
  await ch.send({
    type: "outcome",
    id: scenario.id,
    action: decided.action,
    category: decided.category === undefined ? null : decided.category,
    result: decided.result === undefined ? null : decided.result,
  });
}

/** Entry point used by client.mjs: serves the grader's scenarios until stdin closes. */
export async function run(callWithRepair) {
  // console.log() and process.stdout.write() in learner code go to stderr, never onto the
  // protocol; the channel keeps the real stdout for itself.
  const realWrite = process.stdout.write.bind(process.stdout);
  process.stdout.write = process.stderr.write.bind(process.stderr);
  process.stdout.on("error", () => process.exit(0)); // the grader went away (EPIPE)
  const ch = channel(realWrite);
  let code = 0;
  try {
    for (let message = await ch.receive(); message !== null; message = await ch.receive()) {
      if (message.type === "scenario") {
        await play(ch, callWithRepair, message);
      } else {
        console.error(`kata_repair_shim: ignoring ${JSON.stringify(message)} (waiting for a scenario)`);
      }
    }
  } catch (error) {
    if (error instanceof ProtocolError) {
      console.error(`kata_repair_shim: ${error.message}`);
      code = 1;
    } else if (!(error instanceof EndOfInput)) {
      console.error(error && error.stack ? error.stack : String(error));
      code = 1;
    }
  }
  await new Promise((resolve) => realWrite("", () => resolve()));
  process.exit(code);
}
