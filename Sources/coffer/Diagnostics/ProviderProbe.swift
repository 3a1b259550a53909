// SPDX-License-Identifier: Apache-2.0
// What status and doctor learn about the bus and the provider without starting one: owner, process, files.

import DBusTransport
import DBusWire
import Foundation
import SecretServiceProtocol

/// The process behind a bus name, read from /proc (same user only, which is the case for a session provider).
struct ProviderProcess: Encodable {
    var pid: UInt32
    var executable: String?
    var arguments: [String]
    /// The provider's own HOME/XDG_DATA_HOME, so its data directory is the one it really uses.
    var environment: [String: String]

    init(pid: UInt32) {
        self.pid = pid
        executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
        arguments = Self.nulSeparated("/proc/\(pid)/cmdline")
        var environment: [String: String] = [:]
        for entry in Self.nulSeparated("/proc/\(pid)/environ") {
            let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2, ["HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"].contains(parts[0]) {
                environment[parts[0]] = parts[1]
            }
        }
        self.environment = environment
    }

    /// The program's base name: `cofferd`, `gnome-keyring-daemon`, `keepassxc`, …
    var name: String {
        URL(fileURLWithPath: executable ?? arguments.first ?? "?").lastPathComponent
            .replacingOccurrences(of: " (deleted)", with: "")
    }

    var isCofferd: Bool { name == "cofferd" }

    /// Where the provider keeps its files: cofferd's `--data-dir` or `$XDG_DATA_HOME/coffer`; gnome-keyring's
    /// `$XDG_DATA_HOME/keyrings`.
    var dataDirectory: String? {
        if isCofferd, let index = arguments.firstIndex(of: "--data-dir"), index + 1 < arguments.count {
            return arguments[index + 1]
        }
        if isCofferd, let argument = arguments.first(where: { $0.hasPrefix("--data-dir=") }) {
            return String(argument.dropFirst("--data-dir=".count))
        }
        let subdirectory = isCofferd ? "coffer" : name.hasPrefix("gnome-keyring") ? "keyrings" : nil
        guard let subdirectory else { return nil }
        if let data = environment["XDG_DATA_HOME"], !data.isEmpty { return data + "/" + subdirectory }
        return environment["HOME"].map { $0 + "/.local/share/" + subdirectory }
    }

    private static func nulSeparated(_ path: String) -> [String] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        return data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }
}

/// One look at the session bus.
struct ProviderProbe {
    /// The address clients use, or `nil` when none is set.
    var busAddress: String?
    /// Why the bus could not be reached, if it could not.
    var busFailure: String?
    /// The unique name owning org.freedesktop.secrets.
    var owner: String?
    var process: ProviderProcess?
    /// Whether the bus can start a provider on demand (an activation file names org.freedesktop.secrets).
    var activatable = false

    /// Probes the session bus; keeps the connection open in `connection` for callers that go on (nil on failure).
    static func run() async -> (ProviderProbe, Connection?) {
        var probe = ProviderProbe()
        probe.busAddress = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"]
        let connection: Connection
        do {
            connection = try await Connection.connectToSessionBus()
        } catch {
            probe.busFailure = "\(error)"
            return (probe, nil)
        }
        do {
            if let owner = try await connection.nameOwner(of: SecretServiceNames.busName) {
                probe.owner = owner.rawValue
                if let pid = try await connection.processID(of: SecretServiceNames.busName) {
                    probe.process = ProviderProcess(pid: pid)
                }
            }
            let reply = try await connection.call(Message.methodCall(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "ListActivatableNames"))
            probe.activatable = reply.body.first?.arrayElements?.contains { $0.string == SecretServiceNames.busName.rawValue } ?? false
        } catch {
            probe.busFailure = "\(error)"
        }
        return (probe, connection)
    }
}
