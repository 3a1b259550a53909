# SPDX-License-Identifier: Apache-2.0
# Coffer: set up, build, run, test and install.
#
#   make run       install system packages, build, and run cofferd on the session bus (a private bus if none)
#   make test      install system packages (test clients included) and run the whole test suite
#   make install   install cofferd, the D-Bus activation file and the systemd user unit under PREFIX
#   make fuzz / test-asan / test-tsan / reliability   hostile input and sanitizers (README "Reliability")

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

# Hostile input and memory errors (README "Reliability"). The sanitizer and fuzzer runtimes come with the Swift
# toolchain; the builds use their own scratch paths, so the tests start the cofferd built the same way.
FUZZ_TARGETS ?= collection-file dbus-message
FUZZ_SECONDS ?= 60
# Leak checking is off: cofferd's exit paths (a taken name, a lost bus) leave the message being decoded, and the
# Swift runtime's caches, to the process's end.
ASAN_RUN_OPTIONS ?= halt_on_error=1:detect_leaks=0
# The suppressions cover only what ThreadSanitizer cannot see on Linux (see the file).
TSAN_RUN_OPTIONS ?= halt_on_error=1:suppressions=$(CURDIR)/.ci/tsan-suppressions.txt
# Both sanitizers turn mlock into a no-op, so cofferd's refusal to run without lockable memory cannot show; the
# SIGKILL suite (minutes of kill -9, where no sanitizer gets to report) stays in `make test` to keep CI short.
SANITIZER_SKIP ?= SecureMemoryTests|CrashTests
# The D-Bus fuzz test runs its full 10,000 calls in `make test`; under a sanitizer a shorter run suffices.
SANITIZER_FUZZ_CALLS ?= 2000

.PHONY: fuzz test-asan test-tsan reliability

fuzz: setup
	@for target in $(FUZZ_TARGETS); do Fuzz/run-target $$target $(FUZZ_SECONDS) || exit 1; done

test-asan: setup-test
	swift build --build-tests --sanitize=address --scratch-path .build-asan
	ASAN_OPTIONS=$(ASAN_RUN_OPTIONS) COFFER_FUZZ_CALLS=$(SANITIZER_FUZZ_CALLS) COFFER_FUZZ_RSS_LIMIT_MIB=1536 \
	  .build-asan/debug/CofferPackageTests.xctest --testing-library swift-testing --skip '$(SANITIZER_SKIP)'

test-tsan: setup-test
	swift build --build-tests --sanitize=thread --scratch-path .build-tsan
	TSAN_OPTIONS=$(TSAN_RUN_OPTIONS) COFFER_FUZZ_CALLS=$(SANITIZER_FUZZ_CALLS) COFFER_FUZZ_RSS_LIMIT_MIB=3072 \
	  .build-tsan/debug/CofferPackageTests.xctest --testing-library swift-testing --skip '$(SANITIZER_SKIP)'

reliability: setup-test
	FUZZ_TARGETS='$(FUZZ_TARGETS)' FUZZ_SECONDS=$(FUZZ_SECONDS) Fuzz/reliability
