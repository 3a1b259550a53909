# SPDX-License-Identifier: Apache-2.0
# Coffer: set up, build, run, test and install.
#
#   make run       install system packages, build, and run cofferd on the session bus (a private bus if none)
#   make test      install system packages (test clients included) and run the whole test suite
#   make install   install cofferd, coffer (with man page and bash/zsh/fish completions), the D-Bus activation file
#                  and the systemd user unit under PREFIX (DESTDIR for staging; CONFIGURATION=debug for a quick try),
#                  and pam_coffer.so into the system's PAM module directory (docs/PAM.md)
#   make fuzz / test-asan / test-tsan / reliability   hostile input and sanitizers (docs/RELIABILITY.md)
#   make bench     the side-by-side benchmark (docs/PERFORMANCE.md)

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share
SYSTEMD_USER_DIR ?= $(PREFIX)/lib/systemd/user
MANDIR ?= $(DATADIR)/man
DESTDIR ?=
CONFIGURATION ?= release

# Build and runtime needs, then the real clients the integration tests drive.
BUILD_PACKAGES = pkg-config libdbus-1-dev libgcrypt20-dev dbus-daemon dbus-bin pinentry-curses $(PAM_BUILD_PACKAGES)
TEST_PACKAGES = libsecret-tools gnome-keyring python3 python3-secretstorage python3-keyring python3-dbus libglib2.0-bin systemd libcap2-bin util-linux pamtester

# The fault tests: mount namespaces and mounts (util-linux, mount), capabilities (libcap2-bin), prlimit.
FAULT_TEST_PACKAGES = util-linux mount libcap2-bin

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup setup-test build run test install verify-unit clean reliability-faults

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
	$(call apt_install,$(TEST_PACKAGES) $(FAULT_TEST_PACKAGES))

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

# Every cofferd/coffer log of the test run is kept here, then scanned for the secrets, passwords, labels and
# attribute values the tests used (the "Secrets hygiene" suite); a value found fails `make test`.
TEST_LOG_ARCHIVE ?= $(CURDIR)/.build/test-logs

test: setup-test pam-module
	swift build --product cofferd
	swift build --product coffer
	rm -rf "$(TEST_LOG_ARCHIVE)"
	COFFER_TEST_LOG_ARCHIVE="$(TEST_LOG_ARCHIVE)" .ci/failures swift test
	COFFER_TEST_LOG_ARCHIVE="$(TEST_LOG_ARCHIVE)" COFFER_HYGIENE_SCAN=1 \
	  swift test --skip-build --filter 'SecretsHygieneTests/wholeRunLeaksNothing'

# The fault-injection and secrets figures of docs/RELIABILITY.md. COFFER_KILL_POINTS=10000 (and
# COFFER_KILL_SEED=<seed> to replay a run) gives the longer mode.
reliability-faults: setup-test
	swift build --build-tests
	"$$(swift build --show-bin-path)/CofferPackageTests.xctest" --testing-library swift-testing \
	  --filter 'KillPointTests|DiskFaultTests|SecureMemoryTests' | grep '^reliability:'

# The man pages come from swift-argument-parser's generate-manual plugin and its completions from
# `coffer --generate-completion-script`, so both always match the parser.
MANUALS = .build/plugins/GenerateManual/outputs

install:
	swift build -c $(CONFIGURATION) --product cofferd
	swift build -c $(CONFIGURATION) --product coffer
	swift package generate-manual --configuration $(CONFIGURATION)
	bin="$$(swift build -c $(CONFIGURATION) --show-bin-path)"; \
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(DATADIR)/dbus-1/services" "$(DESTDIR)$(SYSTEMD_USER_DIR)" \
	  "$(DESTDIR)$(MANDIR)/man1" "$(DESTDIR)$(DATADIR)/bash-completion/completions" \
	  "$(DESTDIR)$(DATADIR)/zsh/site-functions" "$(DESTDIR)$(DATADIR)/fish/vendor_completions.d"; \
	install -m 0755 "$$bin/cofferd" "$(DESTDIR)$(BINDIR)/cofferd"; \
	install -m 0755 "$$bin/coffer" "$(DESTDIR)$(BINDIR)/coffer"; \
	install -m 0644 $(MANUALS)/coffer/coffer.1 $(MANUALS)/cofferd/cofferd.1 "$(DESTDIR)$(MANDIR)/man1/"; \
	"$$bin/coffer" --generate-completion-script bash > "$(DESTDIR)$(DATADIR)/bash-completion/completions/coffer"; \
	"$$bin/coffer" --generate-completion-script zsh > "$(DESTDIR)$(DATADIR)/zsh/site-functions/_coffer"; \
	"$$bin/coffer" --generate-completion-script fish > "$(DESTDIR)$(DATADIR)/fish/vendor_completions.d/coffer.fish"; \
	sed 's|@bindir@|$(BINDIR)|g' dbus/org.freedesktop.secrets.service.in \
	  > "$(DESTDIR)$(DATADIR)/dbus-1/services/org.freedesktop.secrets.service"; \
	sed 's|@bindir@|$(BINDIR)|g' dbus/cofferd.service.in > "$(DESTDIR)$(SYSTEMD_USER_DIR)/cofferd.service"
	@echo "installed; a D-Bus session started after this activates cofferd on the first secret request"

# Checks the systemd user unit the way systemd reads it, pointing at the local build (man pages are checked only
# once installed), and prints systemd's exposure score for its sandboxing.
verify-unit:
	swift build -c $(CONFIGURATION) --product cofferd
	@unit="$$(mktemp -d)/cofferd.service"; \
	sed "s|@bindir@|$$(swift build -c $(CONFIGURATION) --show-bin-path)|g" dbus/cofferd.service.in > "$$unit"; \
	systemd-analyze verify --man=no "$$unit" && systemd-analyze security --offline=true "$$unit" | tail -1

clean:
	swift package clean

# The side-by-side benchmark (docs/PERFORMANCE.md): cofferd (release), gnome-keyring and a null provider, each on a
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

# Hostile input and memory errors (docs/RELIABILITY.md). The sanitizer and fuzzer runtimes come with the Swift
# toolchain; the builds use their own scratch paths, so the tests start the cofferd built the same way.
FUZZ_TARGETS ?= collection-file dbus-message keyring-import
FUZZ_SECONDS ?= 60
# Leak checking is off: cofferd's exit paths (a taken name, a lost bus) leave the message being decoded, and the
# Swift runtime's caches, to the process's end.
ASAN_RUN_OPTIONS ?= halt_on_error=1:detect_leaks=0
# The suppressions cover only what ThreadSanitizer cannot see on Linux (see the file).
TSAN_RUN_OPTIONS ?= halt_on_error=1:suppressions=$(CURDIR)/.ci/tsan-suppressions.txt
# Both sanitizers turn mlock into a no-op, so cofferd's refusal to run without lockable memory, and large secrets
# landing in locked pages, cannot show; the SIGKILL suites (minutes of kill -9, where no sanitizer gets to report)
# stay in `make test` to keep CI short.
SANITIZER_SKIP ?= SecureMemoryTests|largeBuffersLocked|CrashTests|KillPointTests
# The D-Bus fuzz test runs its full 10,000 calls in `make test`; under a sanitizer a shorter run suffices.
SANITIZER_FUZZ_CALLS ?= 2000

.PHONY: fuzz test-asan test-tsan reliability

fuzz: setup
	@for target in $(FUZZ_TARGETS); do Fuzz/run-target $$target $(FUZZ_SECONDS) || exit 1; done

test-asan: setup-test pam-module
	swift build --build-tests --sanitize=address --scratch-path .build-asan
	ASAN_OPTIONS=$(ASAN_RUN_OPTIONS) COFFER_FUZZ_CALLS=$(SANITIZER_FUZZ_CALLS) COFFER_FUZZ_RSS_LIMIT_MIB=1536 \
	  .ci/failures .build-asan/debug/CofferPackageTests.xctest --testing-library swift-testing --skip '$(SANITIZER_SKIP)'

test-tsan: setup-test pam-module
	swift build --build-tests --sanitize=thread --scratch-path .build-tsan
	TSAN_OPTIONS=$(TSAN_RUN_OPTIONS) COFFER_FUZZ_CALLS=$(SANITIZER_FUZZ_CALLS) COFFER_FUZZ_RSS_LIMIT_MIB=3072 \
	  .ci/failures .build-tsan/debug/CofferPackageTests.xctest --testing-library swift-testing --skip '$(SANITIZER_SKIP)'

reliability: setup-test
	FUZZ_TARGETS='$(FUZZ_TARGETS)' FUZZ_SECONDS=$(FUZZ_SECONDS) Fuzz/reliability

# ---- PAM module (docs/PAM.md) ----
# pam_coffer.so is plain C built by the C compiler, not SwiftPM: it is loaded into login, sshd and gdm, which must
# not get the Swift runtime. It goes where libpam looks (the multiarch security directory) whatever PREFIX is, and
# starts $(BINDIR)/cofferd when no cofferd answers at login.
PAM_BUILD_PACKAGES = gcc libc6-dev libpam0g-dev
PAM_MODULE_DIR ?= /lib/$(shell $(CC) -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)/security
PAM_BUILD_DIR = .build/pam
PAM_CFLAGS ?= -O2 -g -Wall -Wextra -Werror -fstack-protector-strong -D_FORTIFY_SOURCE=2

.PHONY: pam-module install-pam
pam-module: setup
	@mkdir -p $(PAM_BUILD_DIR)
	$(CC) $(PAM_CFLAGS) -fPIC -shared -Wl,-z,relro,-z,now -Wl,--no-undefined \
	  -DCOFFERD_PATH='"$(BINDIR)/cofferd"' -o $(PAM_BUILD_DIR)/pam_coffer.so pam/pam_coffer.c -lpam

install-pam: pam-module
	@if [ -z "$(DESTDIR)" ] && ! [ -w "$(PAM_MODULE_DIR)" ]; then \
	  echo "not installing pam_coffer.so: $(PAM_MODULE_DIR) is not writable (run as root, or set PAM_MODULE_DIR)"; \
	else \
	  install -d "$(DESTDIR)$(PAM_MODULE_DIR)" && \
	  install -m 0644 $(PAM_BUILD_DIR)/pam_coffer.so "$(DESTDIR)$(PAM_MODULE_DIR)/pam_coffer.so" && \
	  echo "installed $(PAM_MODULE_DIR)/pam_coffer.so; add it to /etc/pam.d as docs/PAM.md shows"; \
	fi

install: install-pam
