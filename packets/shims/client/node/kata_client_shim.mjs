// The client harness's wire protocol. You need not touch this file.
//
// `kata grade` plays the orders server and a virtual clock, and talks to client.mjs in JSON lines
// over stdin/stdout. For every scenario it sends, this shim calls your
//
//     async callWithRetry(invoke, sleep, log, request, policy) -> { action, category, result }
//
// with three functions that do the talking:
//
//     await invoke(request)  -> the tool result's payload (an object: the typed error or the success)
//     await sleep(seconds)   -> resolves when the virtual clock has advanced; no real time passes
//     log(category, message) -> records a log line (the grader checks those with category "unknown")
//
// and reports what you return as the scenario's outcome. action is one of "success", "escalate",
// "abort", "exhausted"; category is the payload's category as you classified it ("unknown" when it
// had none you know, null for success); result is the last payload. (An array
// [action, category, result] is accepted too.)
//
// While the shim runs, console.log() and process.stdout.write() go to stderr, so a debugging
// print cannot break the protocol. An exception in callWithRetry prints its stack to stderr and
// ends the process with status 1: the grader fails that scenario, shows the stack, restarts the
// client and goes on.

import { createInterface } from "node:readline";

const ACTIONS = ["success", "escalate", "abort", "exhausted"];

class ProtocolError extends Error {}
class EndOfInput extends Error {}

class Channel {
  constructor(input, write) {
    this._lines = createInterface({ input, crlfDelay: Infinity })[Symbol.asyncIterator]();
    this._write = write;
  }

  send(message) {
    return new Promise((resolve) => {
      try {
        this._write(JSON.stringify(message) + "\n", () => resolve());
      } catch {
        resolve();
      }
    });
  }

  /** The next message, or null at end of input. */
  async receive() {
    let raw;
    for (;;) {
      const next = await this._lines.next();
      if (next.done) {
        return null;
      }
      raw = next.value;
      if (raw.trim()) {
        break;
      }
    }
    let message;
    try {
      message = JSON.parse(raw);
    } catch (error) {
      throw new ProtocolError(
        `not a JSON line from the grader: ${JSON.stringify(raw.slice(0, 200))} (${error.message})`,
      );
    }
    if (typeof message !== "object" || message === null || Array.isArray(message)) {
      throw new ProtocolError(`expected a JSON object from the grader, got ${raw.slice(0, 200)}`);
    }
    return message;
  }

  async expect(kind) {
    const message = await this.receive();
    if (message === null) {
      throw new EndOfInput(`the grader closed the connection while we waited for "${kind}"`);
    }
    if (message.type !== kind) {
      throw new ProtocolError(`expected a "${kind}" message, got ${JSON.stringify(message)}`);
    }
    return message;
  }
}

async function runScenario(channel, callWithRetry, scenario) {
  const invoke = async (request) => {
    await channel.send({ type: "invoke", request });
    return (await channel.expect("result")).result;
  };
  const sleep = async (seconds) => {
    await channel.send({ type: "sleep", seconds });
    await channel.expect("slept");
  };
  const log = (category, message) => {
    // No reply comes back; the line is queued in order with the next message.
    channel.send({ type: "log", category, message: String(message) });
  };

  const outcome = await callWithRetry(invoke, sleep, log, scenario.request, scenario.policy);
  let action, category, result;
  if (Array.isArray(outcome) && outcome.length === 3) {
    [action, category, result] = outcome;
  } else if (typeof outcome === "object" && outcome !== null && "action" in outcome) {
    ({ action, category, result } = outcome);
  } else {
    throw new TypeError(
      `callWithRetry must return { action, category, result }, got ${JSON.stringify(outcome)}`,
    );
  }
  if (!ACTIONS.includes(action)) {
    console.error(
      `callWithRetry returned action ${JSON.stringify(action)}; expected one of ${ACTIONS.join(", ")}`,
    );
  }
  await channel.send({
    type: "outcome",
    id: scenario.id,
    action,
    category: category === undefined ? null : category,
    result: result === undefined ? null : result,
  });
}

async function main(callWithRetry) {
  // console.log() and process.stdout.write() in learner code go to stderr, never onto the
  // protocol; the channel keeps the real stdout for itself.
  const stdout = process.stdout;
  const realWrite = stdout.write.bind(stdout);
  stdout.write = process.stderr.write.bind(process.stderr);
  stdout.on("error", () => process.exit(0)); // the grader went away (EPIPE)
  const channel = new Channel(process.stdin, realWrite);
  try {
    for (;;) {
      const message = await channel.receive();
      if (message === null) {
        return 0;
      }
      if (message.type !== "scenario") {
        console.error(`kata_client_shim: ignoring ${JSON.stringify(message)} (waiting for a scenario)`);
        continue;
      }
      await runScenario(channel, callWithRetry, message);
    }
  } catch (error) {
    if (error instanceof EndOfInput) {
      return 0;
    }
    if (error instanceof ProtocolError) {
      console.error(`kata_client_shim: ${error.message}`);
      return 1;
    }
    console.error(error && error.stack ? error.stack : String(error));
    return 1;
  } finally {
    await new Promise((resolve) => realWrite("", () => resolve()));
  }
}

/** Entry point used by client.mjs. */
export async function run(callWithRetry) {
  const code = await main(callWithRetry);
  process.exit(code);
}
