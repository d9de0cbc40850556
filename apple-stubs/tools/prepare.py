#!/usr/bin/env python3
"""Prepares the inputs of scripts/apple-typecheck (Python standard library only).

  prepare.py stubs PLATFORM MIN_VERSION SRC_DIR OUT_DIR
      Copies the stub sources, making every declaration introduced after the platform's
      minimum unavailable: `@available(iOS 16.4, macOS 13.3, *)` becomes
      `@available(*, unavailable, message: "iOS 16.4; BridgeKit's minimum is iOS 15.0")` when
      checking iOS at 15.0. Uses of newer API then fail to type-check, as they would on a real
      SDK with the deployment target at the minimum (where only an `if #available` guard helps;
      the stubs have no such escape, so newer API needs a stub variant, see README.md).
  prepare.py sources SRC_DIR OUT_DIR
      Copies Swift sources, turning the platform conditions of `#if` lines that Linux cannot
      satisfy into compilation conditions the check sets with -D: `os(iOS)` -> `APPLE_OS_iOS`,
      `os(macOS)` -> `APPLE_OS_macOS`, `targetEnvironment(macCatalyst)` -> `APPLE_TARGET_macCatalyst`.
      Line numbers are kept, so diagnostics point at the real lines.
  prepare.py docs OUT_DIR FILE...
      Extracts every ```swift block of the given Markdown files that is a complete file (its
      first code line is an `import`) and imports UIKit, AppKit or WebKit, as OUT_DIR/<name>.swift,
      and prints "<platforms> <file> <source>:<line>" per block (platforms: ios, macos or
      ios,macos; UIKit means iOS, AppKit macOS).
"""
import os
import re
import sys

AVAILABLE = re.compile(r'^(\s*)@available\(([^)]*)\)\s*$')
PLATFORM_NAMES = {"ios": "iOS", "macos": "macOS"}


def version_tuple(text):
    return tuple(int(part) for part in text.split("."))


def rewrite_available(line, platform, minimum):
    match = AVAILABLE.match(line)
    if not match:
        return line
    indent, arguments = match.groups()
    name = PLATFORM_NAMES[platform]
    for argument in (a.strip() for a in arguments.split(",")):
        parts = argument.split()
        if len(parts) == 2 and parts[0] == name and re.fullmatch(r'[0-9.]+', parts[1]):
            if version_tuple(parts[1]) > version_tuple(minimum):
                return (f'{indent}@available(*, unavailable, message: "{name} {parts[1]}; '
                        f'BridgeKit\'s minimum is {name} {minimum}")\n')
    return line


def stubs(platform, minimum, source, out):
    for root, _, files in os.walk(source):
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(root, name)
            target = os.path.join(out, os.path.relpath(path, source))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(path, encoding="utf-8") as file, open(target, "w", encoding="utf-8") as output:
                for line in file:
                    output.write(rewrite_available(line, platform, minimum))


CONDITION_LINE = re.compile(r'^\s*#(if|elseif)\b')


def sources(source, out):
    for root, _, files in os.walk(source):
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(root, name)
            target = os.path.join(out, os.path.relpath(path, source))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(path, encoding="utf-8") as file, open(target, "w", encoding="utf-8") as output:
                for line in file:
                    if CONDITION_LINE.match(line):
                        line = re.sub(r'\bos\((\w+)\)', r'APPLE_OS_\1', line)
                        line = re.sub(r'\btargetEnvironment\((\w+)\)', r'APPLE_TARGET_\1', line)
                    output.write(line)


def docs(out, files):
    os.makedirs(out, exist_ok=True)
    for path in files:
        with open(path, encoding="utf-8") as file:
            lines = file.readlines()
        index = 0
        while index < len(lines):
            if lines[index].strip() == "```swift":
                start = index + 1
                end = start
                while end < len(lines) and lines[end].strip() != "```":
                    end += 1
                block = lines[start:end]
                index = end + 1
                code = [l.strip() for l in block if l.strip() and not l.strip().startswith("//")]
                if not code or not code[0].startswith("import "):
                    continue
                imports = {l.split()[1] for l in code if l.startswith("import ")}
                if not imports & {"UIKit", "AppKit", "WebKit"}:
                    continue
                if "UIKit" in imports:
                    platforms = "ios"
                elif "AppKit" in imports:
                    platforms = "macos"
                else:
                    platforms = "ios,macos"
                stem = re.sub(r'[^A-Za-z0-9]+', '_', os.path.splitext(path)[0]).strip("_")
                target = os.path.join(out, f"{stem}_L{start + 1}.swift")
                with open(target, "w", encoding="utf-8") as output:
                    # Blank lines keep the Markdown's line numbers in diagnostics.
                    output.write("\n" * start + "".join(block))
                print(platforms, target, f"{path}:{start + 1}")
            else:
                index += 1


def main(arguments):
    if len(arguments) == 5 and arguments[0] == "stubs":
        stubs(*arguments[1:])
    elif len(arguments) == 3 and arguments[0] == "sources":
        sources(*arguments[1:])
    elif len(arguments) >= 2 and arguments[0] == "docs":
        docs(arguments[1], arguments[2:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
