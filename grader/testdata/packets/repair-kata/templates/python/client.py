"""The client side: your repair loop (not written yet)."""

import kata_repair_shim


def call_with_repair(invoke, propose, sleep, log, request, policy):
    raise NotImplementedError("call_with_repair is not written yet (TASK.md, step 6)")


if __name__ == "__main__":
    kata_repair_shim.run(call_with_repair)
