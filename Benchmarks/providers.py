# SPDX-License-Identifier: Apache-2.0
# Starts, prepares and stops the providers the benchmark compares, each on its own private bus with its own HOME.

import hashlib
import os
import shutil
import signal
import subprocess
import time

PASSWORD = "benchmark-login-password"

BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""
# No <servicedir>: a call to a name nobody owns must fail, never activate the machine's own provider.


class Instance:
    """One provider process on its own dbus-daemon, with HOME and XDG directories under `root`."""

    def __init__(self, provider, root):
        self.provider = provider
        self.root = root
        self.home = os.path.join(root, "home")
        runtime = os.path.join(root, "run")
        os.makedirs(runtime, mode=0o700, exist_ok=True)
        os.makedirs(self.home, exist_ok=True)
        config = os.path.join(root, "bus.conf")
        with open(config, "w") as f:
            f.write(BUS_CONFIG.format(socket=os.path.join(runtime, "bus")))
        self.bus = subprocess.Popen(["dbus-daemon", "--config-file=" + config, "--nofork", "--print-address=1"],
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        address = self.bus.stdout.readline().strip()
        if not address:
            raise RuntimeError("dbus-daemon did not start")
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": self.home,
            "XDG_DATA_HOME": os.path.join(self.home, ".local/share"),
            "XDG_CONFIG_HOME": os.path.join(self.home, ".config"),
            "XDG_CACHE_HOME": os.path.join(self.home, ".cache"),
            "XDG_RUNTIME_DIR": runtime, "DBUS_SESSION_BUS_ADDRESS": address,
        }
        self.process = None
        self.log = open(os.path.join(root, provider.name + ".log"), "ab")

    def start(self, client, n, unlock=True):
        """Starts the provider and waits for its first answered lookup. Returns (cold start seconds)."""
        # Started first, so that the provider's start-up is all that is timed; it waits for the name on the bus.
        waiter = subprocess.Popen([client, "coldstart" if n > 0 else "waitname", "1", str(max(n, 1))], env=self.env,
                                  stdout=subprocess.PIPE, text=True)
        started = time.monotonic_ns()
        self.provider.prepare(self.home)
        self.process = subprocess.Popen(self.provider.command(unlock), env=self.env, stdin=subprocess.PIPE,
                                        stdout=self.log, stderr=self.log, cwd=self.root)
        if self.provider.reads_password:
            self.process.stdin.write(PASSWORD.encode() if unlock else b"")
        self.process.stdin.close()
        try:
            out, _ = waiter.communicate(timeout=600)
        except subprocess.TimeoutExpired:
            waiter.kill()
            self.stop()
            raise RuntimeError(f"{self.provider.name} did not answer within 10 minutes (see {self.root})")
        if n == 0:
            return None
        if waiter.returncode != 0 or not out.startswith("ready "):
            raise RuntimeError(f"{self.provider.name} did not answer its first lookup (see {self.root})")
        return (int(out.split()[1]) - started) / 1e9

    @property
    def pid(self):
        return self.process.pid

    def cpu_seconds(self):
        """User + system CPU of the provider (all threads), from /proc/PID/stat."""
        with open(f"/proc/{self.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_bytes(self):
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        return 0

    def stop(self):
        if self.process and self.process.poll() is None:
            # gnome-keyring-daemon --foreground ignores SIGTERM; it writes each change before answering, so killing
            # it loses nothing. cofferd and the null provider stop cleanly on SIGTERM.
            self.process.send_signal(signal.SIGTERM if self.provider.stops_on_sigterm else signal.SIGKILL)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.bus.terminate()
        self.bus.wait()
        self.log.close()


def data_bytes(directory):
    total = 0
    for base, _, files in os.walk(directory):
        total += sum(os.path.getsize(os.path.join(base, name)) for name in files)
    return total


class Provider:
    reads_password = True
    stops_on_sigterm = True

    def __init__(self, name):
        self.name = name

    def template(self, scratch, client, n, log):
        """A HOME holding the provider's N-item state, made once and cached under the scratch directory."""
        return None

    def data_dir(self, home):
        return None

    def prepare(self, home):
        """Writes what the provider needs in `home` before each start (templates are copied to other places)."""

    def cached_template(self, scratch, tag, n, log, how, prepare):
        """The HOME under scratch/templates holding the N-item state; `prepare(instance)` makes it the first time."""
        path = os.path.join(scratch, "templates", f"{self.name}-{n}-{tag}")
        if os.path.exists(os.path.join(path, "complete")):
            return os.path.join(path, "home")
        shutil.rmtree(path, ignore_errors=True)
        log(f"preparing {self.name} with {n} items ({how}; cached in {path})")
        instance = Instance(self, path)
        prepare(instance)
        open(os.path.join(path, "complete"), "w").close()
        return instance.home


class NullProvider(Provider):
    reads_password = False

    def __init__(self, binary):
        super().__init__("null")
        self.binary = binary

    def command(self, unlock):
        return [self.binary]


class Cofferd(Provider):
    def __init__(self, binary, name="cofferd", access_control="off"):
        super().__init__(name)
        self.binary = binary
        # Off by default: the Keychain rows read through libsecret what keychain-bench stored (two programs, so
        # under `ask` every read would be a question), and gnome-keyring, the reference, has none. `--access-control
        # ask` measures the cost of cofferd's default for a client reading the items it stored (docs/PERFORMANCE.md).
        self.access_control = access_control

    def command(self, unlock):
        return [self.binary, "--foreground", "--log-level", "warning", "--access-control", self.access_control] + \
            (["--unlock"] if unlock else [])

    def data_dir(self, home):
        return os.path.join(home, ".local/share/coffer")

    def template(self, scratch, client, n, log):
        with open(self.binary, "rb") as f:
            version = hashlib.sha256(f.read()).hexdigest()[:12]

        def fill(instance):
            try:
                instance.start(client, 0)
                filler = subprocess.run([client, "fill", str(n), "0"], env=instance.env, timeout=7200)
                if filler.returncode != 0:
                    raise RuntimeError("filling cofferd failed")
            finally:
                instance.stop()

        return self.cached_template(scratch, version, n, log, "stores through the client", fill)


class CofferdSync(Cofferd):
    """cofferd whose login collection is synchronized through a folder in its HOME (docs/SYNC.md): each change is
    also appended to the device's journal and synced with the collection file. Its cold start includes verifying
    the journal of N records."""

    def __init__(self, binary, access_control="off"):
        super().__init__(binary, name="cofferd-sync", access_control=access_control)

    def template(self, scratch, client, n, log):
        """cofferd's N items stored while login is synchronized, so that each run measures the steady state, not
        the one-time writing of every item to a new journal."""
        with open(self.binary, "rb") as f:
            version = hashlib.sha256(f.read()).hexdigest()[:12]

        def fill(instance):
            # The first start makes login; the second (on a new bus, over the same HOME) unlocks it with its
            # password, which synchronizes it.
            instance.start(client, 0)
            instance.stop()
            again = Instance(self, instance.root)
            try:
                again.start(client, 0)
                filler = subprocess.run([client, "fill", str(n), "0"], env=again.env, timeout=7200)
                if filler.returncode != 0:
                    raise RuntimeError("filling cofferd-sync failed")
            finally:
                again.stop()

        return self.cached_template(scratch, version, n, log, "stores through the client, synchronized", fill)

    @staticmethod
    def folder(home):
        return os.path.join(home, "Sync")

    def prepare(self, home):
        os.makedirs(self.folder(home), exist_ok=True)
        config = os.path.join(home, ".config", "coffer")
        os.makedirs(config, exist_ok=True)
        with open(os.path.join(config, "cofferd.conf"), "w") as f:
            f.write(f"[collection login]\nsync-folder = {self.folder(home)}\n")


class GnomeKeyring(Provider):
    stops_on_sigterm = False
    binary = "/usr/bin/gnome-keyring-daemon"

    def __init__(self):
        super().__init__("gnome-keyring")

    def command(self, unlock):
        return [self.binary, "--foreground", "--components=secrets"] + (["--unlock"] if unlock else [])

    def data_dir(self, home):
        return os.path.join(home, ".local/share/keyrings")

    def template(self, scratch, client, n, log):
        """gnome-keyring rewrites its whole file on every store, so filling 10,000 items one by one takes over an
        hour. Instead the N items are written once as gnome-keyring's unencrypted (textual) keyring format; then
        gnome-keyring itself loads that file and gives the keyring its password (ChangeWithMasterPassword), which
        makes it write the ordinary encrypted login.keyring — the same file N normal stores would have produced."""
        version = subprocess.run([self.binary, "--version"], capture_output=True, text=True).stdout.strip()
        tag = hashlib.sha256(version.encode()).hexdigest()[:12]
        return self.cached_template(scratch, tag, n, log, "textual keyring re-encrypted by gnome-keyring",
                                    lambda instance: self.fill(instance, client, n))

    def fill(self, instance, client, n):
        keyrings = self.data_dir(instance.home)
        os.makedirs(keyrings, exist_ok=True)
        now = int(time.time())
        with open(os.path.join(keyrings, "login.keyring"), "w") as f:
            f.write(f"[keyring]\ndisplay-name=Login\nctime={now}\nmtime={now}\nlock-on-idle=false\nlock-after=false\n")
            for i in range(n):
                f.write(f"\n[{i + 1}]\nitem-type=0\ndisplay-name=bench item {i}\nsecret=password-{i}\n"
                        f"mtime={now}\nctime={now}\n")
                for k, (name, value) in enumerate([("bench", "coffer"), ("id", str(i)), ("group", f"g{i // 100}")]):
                    f.write(f"\n[{i + 1}:attribute{k}]\nname={name}\ntype=string\nvalue={value}\n")
        with open(os.path.join(keyrings, "default"), "w") as f:
            f.write("login")
        try:
            instance.start(client, 0, unlock=False)
            done = subprocess.run([client, "gk-setpassword", "0", "0"], env=instance.env, input=PASSWORD,
                                  text=True, capture_output=True)
            if done.returncode != 0:
                raise RuntimeError("gnome-keyring did not take the password: " + done.stderr)
        finally:
            instance.stop()
        with open(os.path.join(keyrings, "login.keyring"), "rb") as f:
            if not f.read(16).startswith(b"GnomeKeyring\n\r\0\n"):
                raise RuntimeError("gnome-keyring did not write an encrypted keyring")
