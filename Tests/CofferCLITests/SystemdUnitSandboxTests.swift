// SPDX-License-Identifier: Apache-2.0
// The systemd user unit's command lines, run the way systemd runs them on a fresh account: ExecStartPre= ("+": no
// sandbox) first, then ExecStart= in a mount namespace (bubblewrap) where the whole file system, the home
// included, is read-only and only the ReadWritePaths= that exist and the RuntimeDirectory= are bound writable —
// ProtectSystem=strict, ProtectHome=read-only, ReadWritePaths=-…, RuntimeDirectory=, PrivateNetwork=yes.

import DBusTransport
import DBusWire
import Foundation
import SecretServiceTestSupport
import Testing

@Suite("the systemd user unit on a fresh home")
struct SystemdUnitSandboxTests {
    @Test func unitServesFromAFreshHomeUnderItsSandbox() async throws {
        try await TestBus.withPrivateBus { bus in
            let home = try Self.freshHome(in: bus)
            let unit = try InstalledUnit(home: home, runtime: try Self.freshRuntime(in: bus))
            let dataDirectory = home.appendingPathComponent(".local/share/coffer")
            #expect(!FileManager.default.fileExists(atPath: dataDirectory.path))

            for command in unit.values("ExecStartPre") {
                let (line, sandboxed) = command.hasPrefix("+") ? (String(command.dropFirst()), false) : (command, true)
                #expect(!sandboxed, "only unsandboxed pre-start commands are modelled here: \(command)")
                let words = line.split(separator: " ").map(String.init)
                let result = try await ClientEnvironment(bus: bus).run(words[0], Array(words.dropFirst()))
                #expect(result.status == 0, "\(command): \(result.stderr)")
            }
            let attributes = try FileManager.default.attributesOfItem(atPath: dataDirectory.path)
            #expect((attributes[.posixPermissions] as? Int) == 0o700)

            // The harness appends its own options (bus address, log level, test pinentry) after the unit's.
            let execStart = unit.words("ExecStart")
            #expect(execStart.first == (try DaemonHarness.executableURL().path))
            let harness = try await DaemonHarness.start(on: bus, options: {
                var options = DaemonHarness.SubprocessOptions(
                    arguments: Array(execStart.dropFirst()), loginPassword: nil,
                    environment: ["HOME": home.path, "XDG_DATA_HOME": home.path + "/.local/share",
                                  "XDG_RUNTIME_DIR": unit.runtime.path],
                    name: "unit")
                options.launcher = try unit.sandbox()
                return options
            }())

            // It serves: a secret stored through secret-tool comes back, and a new persistent collection is written
            // into the data directory, the one place the sandbox lets it write.
            let client = ClientEnvironment(bus: bus)
            let store = try await client.secretTool(["store", "--collection=session", "--label=unit", "unit", "fresh"],
                                                    input: Data("from the sandbox".utf8))
            #expect(store.status == 0, "\(store.stderr)")
            #expect(try await client.secretTool(["lookup", "unit", "fresh"]).text == "from the sandbox")
            let create = try await CofferCLI(bus: bus).run(["create-keychain", "work"], input: "work password\n")
            #expect(create.status == 0, "\(create.stderr)")
            let files = try FileManager.default.contentsOfDirectory(atPath: dataDirectory.path)
            #expect(files.contains { $0.hasSuffix(".coffer") }, "\(files)")
            // The login channel for the PAM module listens in the runtime directory systemd made for the unit.
            #expect(FileManager.default.fileExists(atPath: unit.runtime.path + "/coffer/control"), "\(harness.log())")
            // …and nothing else in the home was writable.
            #expect(!harness.log().contains("Read-only file system"), "\(harness.log())")

            // SIGTERM to cofferd itself (bwrap is its parent) ends it cleanly, and bwrap passes its status on.
            let control = try await bus.connect()
            let pid = try #require(try await control.processID(of: "org.freedesktop.secrets"))
            await control.close()
            kill(pid_t(pid), SIGTERM)
            #expect(await harness.waitForExit() == .exited(0), "\(harness.log())")
        }
    }

    /// Without the pre-start command the data directory is missing, ReadWritePaths= skips it, and cofferd cannot
    /// create it in the read-only home: one line naming the directory, and its own exit status.
    @Test func missingDataDirectoryInTheSandboxIsOneLineAndStatus6() async throws {
        try await TestBus.withPrivateBus { bus in
            let home = try Self.freshHome(in: bus)
            let unit = try InstalledUnit(home: home, runtime: try Self.freshRuntime(in: bus))
            let sandbox = try unit.sandbox()
            let execStart = unit.words("ExecStart")
            let result = try await ClientEnvironment(bus: bus).run(
                sandbox[0], Array(sandbox.dropFirst()) + execStart,
                extraEnvironment: ["HOME": home.path, "XDG_DATA_HOME": home.path + "/.local/share"])
            #expect(result.status == 6, "\(result.stderr)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(result.stderr)")
            #expect(lines.first?.hasPrefix("cofferd: cannot use the data directory: cannot create \(home.path)/.local")
                    == true, "\(result.stderr)")
            #expect(result.stderr.contains("Read-only file system"))
        }
    }

    /// systemd's own reading of the unit (user manager mode): every key known and valid, every command executable.
    @Test func unitPassesSystemdAnalyzeVerify() async throws {
        try await TestBus.withPrivateBus { bus in
            let unit = try InstalledUnit(home: try Self.freshHome(in: bus), runtime: try Self.freshRuntime(in: bus))
            let file = bus.directory.appendingPathComponent("cofferd.service")
            try (unit.lines.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
            let verify = try await ClientEnvironment(bus: bus).run(
                "/usr/bin/systemd-analyze", ["--user", "verify", "--man=no", file.path],
                extraEnvironment: ["XDG_RUNTIME_DIR": bus.directory.path])
            #expect(verify.status == 0 && verify.stderr.isEmpty, "\(verify.stderr)")
            #expect(unit.values("ExecStartPre").contains { $0.hasPrefix("+") && $0.contains("mkdir") })
        }
    }

    /// An empty $XDG_RUNTIME_DIR of mode 0700, as logind makes one.
    static func freshRuntime(in bus: TestBus) throws -> URL {
        let runtime = bus.directory.appendingPathComponent("fresh-runtime", isDirectory: true)
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        return runtime
    }

    /// An empty home of mode 0700, as a new account has.
    static func freshHome(in bus: TestBus) throws -> URL {
        let home = bus.directory.appendingPathComponent("fresh-home", isDirectory: true)
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o700])
        return home
    }
}

/// dbus/cofferd.service.in as `make install` writes it (pointing at the built cofferd), with `%h` and `%t` expanded
/// for one home and runtime directory, read the way systemd reads its keys.
struct InstalledUnit {
    let lines: [String]
    let home: URL
    let runtime: URL

    init(home: URL, runtime: URL, filePath: String = #filePath) throws {
        let root = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let bindir = try DaemonHarness.executableURL().deletingLastPathComponent().path
        let text = try String(contentsOf: root.appendingPathComponent("dbus/cofferd.service.in"), encoding: .utf8)
            .replacingOccurrences(of: "@bindir@", with: bindir)
            .replacingOccurrences(of: "%h", with: home.path)
            .replacingOccurrences(of: "%t", with: runtime.path)
        lines = text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
        self.home = home
        self.runtime = runtime
    }

    /// Every value of `key`, in order.
    func values(_ key: String) -> [String] {
        lines.filter { $0.hasPrefix(key + "=") }.map { String($0.dropFirst(key.count + 1)) }
    }

    /// The single value of `key` split into words (the unit's values hold no quoted spaces).
    func words(_ key: String) -> [String] {
        (values(key).last ?? "").split(separator: " ").map(String.init)
    }

    /// A `bwrap … --` command prefix applying the unit's file-system and network settings: the root read-only
    /// (ProtectSystem=strict), the home read-only on its own bind mount (ProtectHome=read-only), each existing
    /// ReadWritePaths= entry writable ("-" entries that are missing are skipped, as systemd does), no network
    /// (PrivateNetwork=yes; the bus is a path socket, which stays reachable), and each RuntimeDirectory= created in
    /// the runtime directory with RuntimeDirectoryMode= and bound writable, as systemd does before it starts the
    /// unit. Fails on a setting it does not model.
    func sandbox() throws -> [String] {
        struct Unmodelled: Error, CustomStringConvertible { let description: String }
        guard values("ProtectSystem") == ["strict"], values("ProtectHome") == ["read-only"],
              values("PrivateNetwork") == ["yes"], values("PrivateTmp").isEmpty
        else { throw Unmodelled(description: "the unit's file-system settings changed; update this model") }
        var arguments = ["/usr/bin/bwrap", "--die-with-parent", "--unshare-net", "--ro-bind", "/", "/",
                         "--dev-bind", "/dev", "/dev", "--proc", "/proc", "--ro-bind", home.path, home.path]
        for entry in values("ReadWritePaths").flatMap({ $0.split(separator: " ").map(String.init) }) {
            let optional = entry.hasPrefix("-")
            let path = optional ? String(entry.dropFirst()) : entry
            if FileManager.default.fileExists(atPath: path) {
                arguments += ["--bind", path, path]
            } else if !optional {
                throw Unmodelled(description: "ReadWritePaths=\(path) does not exist; systemd would refuse to start")
            }
        }
        let mode = values("RuntimeDirectoryMode").last.flatMap { Int($0, radix: 8) } ?? 0o755
        for name in values("RuntimeDirectory").flatMap({ $0.split(separator: " ").map(String.init) }) {
            let path = runtime.appendingPathComponent(name).path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: mode])
            arguments += ["--bind", path, path]
        }
        return arguments + ["--"]
    }
}
