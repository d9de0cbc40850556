#!/usr/bin/env python3
"""Writes the RouterFuzz seed corpus from the protocol fixtures.

Usage: make-seeds.py <fixtures dir> <output dir>

Each Tests/Fixtures/protocol/*.json fixture has a "message" member (a protocol v1 message). For
every message this writes a few inputs in the layout Fuzz/RouterFuzz/main.swift reads:
byte 0 = settings, then records "<control byte><body>" separated by 0x00. Task names are also
mapped onto the harness's tasks so that seeds reach task code, and a few multi-record
conversations (call then cancel, call then navigate, native call then page reply) are added.
"""
import base64
import hashlib
import json
import pathlib
import sys

# Control byte bits (see `Control` in main.swift).
STRING, JSON, WRAPPED = 0x00, 0x01, 0x02
MAIN_APP, SUB_APP, MAIN_EVIL, SUB_WIDGET = 0x00, 0x04, 0x08, 0x0C
HANDLER, NAVIGATE, CALL_PAGE, SETTLE = 0x10, 0x20, 0x40, 0x80
TASKS = ["echo", "progress", "throw", "slow", "cb", "typed", "widget"]
OPTIONS = {"progress": {"n": 4}, "throw": {"code": "not_logged_in"}, "typed": {"a": 1, "b": ["x"]}, "cb": {"k": 1}}


def text(message):
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def record(control, message):
    return bytes([control]) + (message if isinstance(message, bytes) else text(message))


def conversation(settings, *records):
    return bytes([settings]) + b"\x00".join(records)


def main():
    fixtures, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    seeds = []
    messages = []
    for path in sorted(fixtures.glob("*.json")):
        message = json.loads(path.read_text(encoding="utf-8")).get("message")
        if message is not None:
            messages.append(message)
    for message in messages:
        for control in (STRING, JSON, WRAPPED, STRING | HANDLER, SUB_APP | HANDLER, MAIN_EVIL | HANDLER):
            seeds.append(conversation(0x00, record(control, message)))
        if message.get("kind") == "call" or "task" in message:
            for task in TASKS:
                call = dict(message, task=task)
                if task in OPTIONS:
                    call["options"] = OPTIONS[task]
                seeds.append(conversation(0x00, record(STRING | SETTLE, call)))
                source = SUB_WIDGET if task == "widget" else MAIN_APP
                seeds.append(conversation(0x04, record(source | HANDLER, call), record(source, call)))
    call = {"v": 1, "kind": "call", "id": "s-1", "task": "slow"}
    cancel = {"v": 1, "kind": "cancel", "id": "s-1"}
    reply = {"v": 1, "kind": "reply", "id": "n-1", "ok": True, "data": {"a": [1, 2]}}
    seeds.append(conversation(0x00, record(STRING, call), record(STRING, cancel)))
    seeds.append(conversation(0x00, record(STRING, call), record(SUB_APP, cancel), record(NAVIGATE | STRING, call)))
    seeds.append(conversation(0x00, record(CALL_PAGE | SETTLE | STRING, reply)))
    seeds.append(conversation(0x08, record(STRING, dict(call, task="progress", options={"n": 8}))))
    seeds.append(conversation(0x01, record(HANDLER, dict(call, task="echo", options={"__proto__": {"x": "\u2028</script>"}}))))
    # Regression inputs: bodies that once broke an invariant.
    # Issue 20, item 10: a control character in a `callbackId` next to an `id` holding a byte that
    # is not UTF-8; the general path answered it as a call although it is not JSON.
    seeds.append(base64.b64decode(
        "AIB7InRhc2siOiJjYiIsIm9wdGlvbnMiOnsiayI6MX0sImNhbGxiYWNrSWQiOiJSUlJSUlJSUj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+"
        "Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj5SUlJSUhtSUlJNUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUlJSUmwiLCJpZCI6Ik4tMVJSUmNi0zFAIn0="))
    # Issue 20, item 10 (second input): a byte that is not UTF-8 starting `options`, before a `{`
    # that nests the `id` for BodyScan; the envelope scan read it as a token and the id as top level.
    seeds.append(base64.b64decode(
        "AIB7InRhc2siOiJjYiIsIm9wdGlvbnMiOuN7IlJSUlJSUj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+Pj4+wsLCwsI+Pj4+"
        "Pj4+Pj4+PiIsImlkIjoiTi0xUlJSY2LTMUAifQ=="))
    for seed in seeds:
        (out / hashlib.sha1(seed).hexdigest()).write_bytes(seed)
    print(f"fuzz: wrote {len(seeds)} seeds from {len(messages)} fixture messages to {out}")


if __name__ == "__main__":
    main()
