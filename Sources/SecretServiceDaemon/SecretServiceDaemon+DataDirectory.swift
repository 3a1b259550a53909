// SPDX-License-Identifier: Apache-2.0
// Taking the data directory at start: at once when it is free, after a cofferd that is stopping on this bus, or
// after the provider `--replace` displaced. Any other holder keeps it and this daemon exits.

import DBusTransport
import DBusWire
import Logging
import SecretServiceProtocol
import SecretStore

extension SecretServiceDaemon {
    /// How long a cofferd that is stopping (replaced, or told to stop) may take to release the data directory.
    public static let handoverTimeout = Duration.seconds(15)

    /// Takes the data directory before the name is claimed (every start but `--replace`).
    ///
    /// A cofferd gives up the name before it closes its files, and D-Bus activation starts the next one for the
    /// first call after that: refusing then would fail that call over a directory that is about to be free. So a
    /// holder that is on this bus without owning the name is waited for. A holder that serves the name, or that is
    /// not on this bus (a cofferd of another session), is refused at once.
    /// - Returns: The bus connection when one was opened to look at the holder; `nil` when the directory was free.
    func takeDataDirectory() async throws -> Connection? {
        let inUse: DirectoryInUse
        do {
            try await store.lockDirectory()
            return nil
        } catch let error as DirectoryInUse {
            inUse = error
        } catch {
            throw DaemonError.dataDirectoryUnusable("\(error)")
        }
        let connection = try await connect()
        do {
            guard let holder = inUse.holder, try await isStopping(holder, on: connection) else {
                throw DaemonError.dataDirectoryInUse("\(inUse)")
            }
            logger.info("waiting for the cofferd that is stopping to release the data directory",
                        metadata: ["pid": "\(holder)"])
            // A holder that was starting rather than stopping claims the name once loaded: it is here to stay.
            try await waitForDataDirectory(givingUpIf: { try await Self.serves(holder, on: connection) })
            return connection
        } catch {
            await connection.close()
            throw error
        }
    }

    /// Polls for the data directory until it is ours, `givesUp` returns `true`, or ``handoverTimeout`` passes.
    func waitForDataDirectory(givingUpIf givesUp: () async throws -> Bool = { false }) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + Self.handoverTimeout
        while true {
            do {
                try await store.lockDirectory()
                return
            } catch let error as DirectoryInUse {
                if try await givesUp() { throw DaemonError.dataDirectoryInUse("\(error)") }
                guard clock.now < deadline else {
                    throw DaemonError.dataDirectoryInUse("\(error); it did not exit within \(Self.handoverTimeout)")
                }
                // The holder is answering its last calls and closing its files; nothing wakes us when it is done.
                try await Task.sleep(for: .milliseconds(20))
            } catch {
                throw DaemonError.dataDirectoryUnusable("\(error)")
            }
        }
    }

    /// Whether process `pid` owns `org.freedesktop.secrets` on this bus.
    static func serves(_ pid: Int32, on connection: Connection) async throws -> Bool {
        try await connection.processID(of: SecretServiceNames.busName) == UInt32(pid)
    }

    /// Whether process `pid` is on this bus without owning `org.freedesktop.secrets`: a cofferd between giving up
    /// the name and closing its files (or, for a moment, one still loading them).
    private func isStopping(_ pid: Int32, on connection: Connection) async throws -> Bool {
        if try await Self.serves(pid, on: connection) { return false }
        let others = try await connection.listNames().filter { $0.isUnique && $0 != connection.uniqueName }
        for name in others where try await connection.processID(of: name) == UInt32(pid) { return true }
        return false
    }
}
