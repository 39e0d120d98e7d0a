#!/usr/bin/env bash
# ensure_venv DIR: a Python virtualenv at DIR whose pip works (a failed creation leaves a
# python without pip behind). As root on Debian it installs python3-venv when missing.
ensure_venv() {
  local venv="$1"
  if "$venv/bin/python" -m pip --version >/dev/null 2>&1; then return 0; fi
  rm -rf "$venv"
  if ! python3 -c 'import ensurepip' 2>/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      echo "venv: installing python3-venv"
      source "$(dirname "${BASH_SOURCE[0]}")/apt.sh"
      apt_install python3-venv
    else
      echo "venv: Python's venv module is missing (Debian/Ubuntu: sudo apt-get install python3-venv)" >&2
      return 1
    fi
  fi
  python3 -m venv "$venv"
}
