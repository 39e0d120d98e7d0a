#!/usr/bin/env python3
"""Create the skeleton of a new Agent Skill.

Usage:
    init_skill.py <name> [--path DIR] [--description TEXT] [--resources LIST]

Creates DIR/<name>/SKILL.md from a template whose placeholders are marked "[TODO ...]".
quick_validate.py refuses a description that still holds a placeholder and warns about
placeholders left in the body, so nothing unfinished gets packaged by accident.

Options:
    --path DIR          parent folder; default /mnt/user-data/workspace when it exists,
                        else the current directory. Created when missing.
    --description TEXT  the frontmatter description (otherwise a TODO placeholder).
    --resources LIST    comma-separated subfolders to create, from: scripts, references,
                        assets (e.g. --resources scripts,references). Default: none, only
                        SKILL.md; add folders when the skill needs them.

Refuses invalid names (see quick_validate.check_name) and existing folders.
Exit status: 0 created, 1 refused or failed, 2 bad command line.
"""

import argparse
import json
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from quick_validate import MAX_DESCRIPTION_LEN, check_name  # noqa: E402

DEFAULT_PARENT = "/mnt/user-data/workspace"
RESOURCE_DIRS = ("scripts", "references", "assets")
PLACEHOLDER_DESCRIPTION = (
    "[TODO: What this skill does and when to use it: the tasks, file types and phrases "
    "that should trigger it. One or two sentences, third person, under 1024 characters.]"
)

TEMPLATE = """---
name: {name}
description: {description}
# Optional keys (remove the '#' to use them):
# license: Apache-2.0
# compatibility: Needs python3 (standard library only)
# metadata:
#   author: your-name
#   version: "1.0"
---

# {title}

[TODO: One or two sentences on what this skill achieves for the user.]

## When to use

[TODO: The situations and requests this skill is for, and when NOT to use it.]

## Workflow

1. [TODO: First step, as an imperative instruction. Give exact commands, e.g.
   `python3 scripts/example.py INPUT --out /mnt/user-data/outputs/result.txt`
   (paths are relative to this skill's folder).]
2. [TODO: Next step.]
3. Save deliverables in `/mnt/user-data/outputs/` and show them with `present_files`.

## Rules

- [TODO: Constraints, defaults and pitfalls the agent must respect.]
{resources}"""

RESOURCE_NOTES = {
    "scripts": "- `scripts/`: [TODO: list each script, what it does and how to run it.]",
    "references": "- `references/`: [TODO: list each document and when to read it.]",
    "assets": "- `assets/`: [TODO: list templates or files used in the output.]",
}


def title_of(name):
    return " ".join(part.capitalize() for part in name.split("-"))


def parse_resources(text):
    if not text:
        return []
    chosen = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if part not in RESOURCE_DIRS:
            raise ValueError(
                "unknown resource folder %r; choose from %s" % (part, ", ".join(RESOURCE_DIRS))
            )
        if part not in chosen:
            chosen.append(part)
    return chosen


def render(name, description, resources):
    if description is None:
        description_yaml = json.dumps(PLACEHOLDER_DESCRIPTION)
    else:
        # A JSON string is a valid YAML double-quoted scalar, whatever the text holds.
        description_yaml = json.dumps(description, ensure_ascii=False)
    resource_text = ""
    if resources:
        lines = ["", "## Resources", ""]
        lines += [RESOURCE_NOTES[r] for r in RESOURCE_DIRS if r in resources]
        resource_text = "\n".join(lines) + "\n"
    return TEMPLATE.format(
        name=name,
        description=description_yaml,
        title=title_of(name),
        resources=resource_text,
    )


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="init_skill.py",
        description="Create the skeleton of a new Agent Skill folder.",
    )
    parser.add_argument("name", help="skill name: lowercase letters, digits and '-'")
    parser.add_argument("--path", help="parent folder (default: %s or cwd)" % DEFAULT_PARENT)
    parser.add_argument("--description", help="frontmatter description")
    parser.add_argument(
        "--resources",
        default="",
        help="comma-separated folders to create: scripts,references,assets",
    )
    args = parser.parse_args(argv)

    why = check_name(args.name)
    if why:
        print("error: invalid skill name %r: %s" % (args.name, why), file=sys.stderr)
        return 1
    try:
        resources = parse_resources(args.resources)
    except ValueError as exc:
        parser.print_usage(sys.stderr)
        print("init_skill.py: error: %s" % exc, file=sys.stderr)
        return 2

    description = None
    if args.description is not None:
        description = " ".join(args.description.split())
        if not description:
            print("error: --description is empty", file=sys.stderr)
            return 1
        if len(description) > MAX_DESCRIPTION_LEN:
            print(
                "error: --description is %d characters long; at most %d allowed"
                % (len(description), MAX_DESCRIPTION_LEN),
                file=sys.stderr,
            )
            return 1

    parent = args.path
    if parent is None:
        parent = DEFAULT_PARENT if os.path.isdir(DEFAULT_PARENT) else os.getcwd()
    target = os.path.join(parent, args.name)
    if os.path.lexists(target):
        print("error: %s already exists; choose another name or folder" % target, file=sys.stderr)
        return 1

    try:
        os.makedirs(parent, exist_ok=True)
        os.mkdir(target)
        for folder in resources:
            os.mkdir(os.path.join(target, folder))
        with open(os.path.join(target, "SKILL.md"), "w", encoding="utf-8", newline="\n") as f:
            f.write(render(args.name, description, resources))
    except OSError as exc:
        print("error: cannot create %s: %s" % (target, exc.strerror or exc), file=sys.stderr)
        return 1

    print("Created %s" % target)
    print("  SKILL.md" + ("" if description else "  (fill in the [TODO ...] description)"))
    for folder in resources:
        print("  %s/" % folder)
    print("Next: edit SKILL.md, then run quick_validate.py %s" % target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
