#!/usr/bin/env bash
# apt_install PACKAGE...: installs Debian packages quietly, refreshing the package lists
# first only when the install fails without them. For scripts running as root on Debian.
apt_install() {
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq "$@" >/dev/null 2>&1 \
    || { apt-get update -qq >/dev/null && apt-get install -y -qq "$@" >/dev/null; }
}
