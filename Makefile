# SPDX-License-Identifier: Apache-2.0
# Coffer: set up, build, run, test and install.
#
#   make run       install system packages, build, and run cofferd on the session bus (a private bus if none)
#   make test      install system packages (test clients included) and run the whole test suite
#   make install   install cofferd, the D-Bus activation file and the systemd user unit under PREFIX

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share
SYSTEMD_USER_DIR ?= $(PREFIX)/lib/systemd/user
DESTDIR ?=
CONFIGURATION ?= release

# Build and runtime needs, then the real clients the integration tests drive.
BUILD_PACKAGES = pkg-config libdbus-1-dev libgcrypt20-dev dbus-daemon dbus-bin pinentry-curses
TEST_PACKAGES = libsecret-tools gnome-keyring python3 python3-secretstorage python3-keyring python3-dbus libglib2.0-bin systemd libcap2-bin util-linux

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup setup-test build run test install clean

# Installs only what is missing, so repeated runs cost nothing.
define apt_install
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi
endef

setup:
	$(call apt_install,$(BUILD_PACKAGES))

setup-test: setup
	$(call apt_install,$(TEST_PACKAGES))

build: setup
	swift build -c $(CONFIGURATION) --product cofferd

# Runs cofferd on the session bus. Without one (a bare console, ssh, a container), starts a private session bus
# first and prints the line that points secret-tool and other clients at it.
run: build
	@bin="$$(swift build -c $(CONFIGURATION) --show-bin-path)/cofferd"; \
	if [ -n "$$DBUS_SESSION_BUS_ADDRESS" ] && dbus-send --session --dest=org.freedesktop.DBus --print-reply \
	     / org.freedesktop.DBus.GetId >/dev/null 2>&1; then \
	  echo "cofferd: serving on the session bus $$DBUS_SESSION_BUS_ADDRESS"; \
	  exec "$$bin" --foreground --unlock; \
	else \
	  address="$$(dbus-daemon --session --fork --print-address=1 --print-pid=3 3>/dev/null)"; \
	  echo "cofferd: no session bus found; started a private one. In another shell run:"; \
	  echo "  export DBUS_SESSION_BUS_ADDRESS='$$address'"; \
	  echo "then use secret-tool, python keyring, etc. as usual."; \
	  DBUS_SESSION_BUS_ADDRESS="$$address" exec "$$bin" --foreground --unlock; \
	fi

test: setup-test
	swift build --product cofferd
	swift test

install:
	swift build -c release --product cofferd
	bin="$$(swift build -c release --show-bin-path)"; \
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(DATADIR)/dbus-1/services" "$(DESTDIR)$(SYSTEMD_USER_DIR)"; \
	install -m 0755 "$$bin/cofferd" "$(DESTDIR)$(BINDIR)/cofferd"; \
	sed 's|@bindir@|$(BINDIR)|g' dbus/org.freedesktop.secrets.service.in \
	  > "$(DESTDIR)$(DATADIR)/dbus-1/services/org.freedesktop.secrets.service"; \
	sed 's|@bindir@|$(BINDIR)|g' dbus/cofferd.service.in > "$(DESTDIR)$(SYSTEMD_USER_DIR)/cofferd.service"
	@echo "installed; a D-Bus session started after this activates cofferd on the first secret request"

clean:
	swift package clean

# The side-by-side benchmark (README, "Performance"): cofferd (release), gnome-keyring and a null provider, each on a
# private bus, driven by one C client. `make bench BENCH_MODE=quick` is a one-minute smoke run; BENCH_ARGS passes
# more runner options (--sizes, --rounds, --providers, --json FILE).
BENCH_PACKAGES = gcc libc6-dev python3 gnome-keyring
BENCH_MODE ?= full
BENCH_ARGS ?=

.PHONY: bench
bench: setup
	$(call apt_install,$(BENCH_PACKAGES))
	swift build -c release --product cofferd
	python3 Benchmarks/run.py --cofferd "$$(swift build -c release --show-bin-path)/cofferd" \
	  $(if $(filter quick,$(BENCH_MODE)),--quick) $(BENCH_ARGS)
