// SPDX-License-Identifier: Apache-2.0
// Shared pieces of the persistence and crash tests: cofferd restarted on one bus and HOME, files, and our client.

import DBusWire
import Foundation
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport
import Synchronization
import Testing

/// The cofferd instances of one test, started one after another on the same bus (so the same HOME and data).
/// Whatever instance is still running when the test ends is killed, so a failing test leaves no process behind.
final class DaemonSequence: Sendable {
    let bus: TestBus
    private let current = Mutex<DaemonHarness?>(nil)

    init(bus: TestBus) { self.bus = bus }

    /// The persistent login collection's canonical path.
    static let loginPath = SecretObjectPath.collection("login").objectPath

    /// Options with the cheap Argon2id cost, so each start and unlock costs milliseconds.
    static func options(_ name: String, loginPassword: String? = DaemonHarness.testLoginPassword,
                        pinentryAnswers: [String]? = nil) -> DaemonHarness.SubprocessOptions {
        DaemonHarness.SubprocessOptions(arguments: DaemonHarness.cheapKeyDerivation, loginPassword: loginPassword,
                                        pinentryAnswers: pinentryAnswers, name: name)
    }

    /// Starts the next instance; the previous one must have ended.
    func start(_ options: DaemonHarness.SubprocessOptions) async throws -> DaemonHarness {
        let daemon = try await DaemonHarness.start(on: bus, options: options)
        current.withLock { $0 = daemon }
        return daemon
    }

    /// Stops the running instance with SIGTERM and expects a clean exit.
    func stop(sourceLocation: SourceLocation = #_sourceLocation) async {
        guard let daemon = current.withLock({ $0 }) else { return }
        let exit = await daemon.stop()
        #expect(exit == .exited(0), "cofferd \(exit); log:\n\(daemon.log())", sourceLocation: sourceLocation)
    }

    fileprivate func killLeftover() async {
        if let daemon = current.withLock({ $0 }) { await daemon.kill() }
    }

    /// The data directory every instance on this bus uses.
    var dataDirectory: URL {
        bus.directory.appendingPathComponent("home/.local/share/coffer", isDirectory: true)
    }

    /// The file of persistent collection `id`.
    func collectionFile(_ id: String) -> URL { dataDirectory.appendingPathComponent("\(id).coffer") }

    /// The bytes of persistent collection `id`'s file.
    func fileBytes(_ id: String) throws -> Data { try Data(contentsOf: collectionFile(id)) }
}

/// Runs `body` with a fresh private bus on which it may start cofferd any number of times, one at a time.
func withDaemonSequence(isolation: isolated (any Actor)? = #isolation,
                        _ body: (DaemonSequence) async throws -> Void) async throws {
    try await TestBus.withPrivateBus(isolation: isolation) { bus in
        let daemons = DaemonSequence(bus: bus)
        do {
            try await body(daemons)
        } catch {
            await daemons.killLeftover()
            throw error
        }
        await daemons.killLeftover()  // a no-op after `stop()`
    }
}

/// Connects our client to `bus` (with a session of `algorithm`), runs `body`, and closes the client whether `body`
/// throws or not.
func withClient<T>(on bus: TestBus, algorithm: SessionAlgorithm = .dh, isolation: isolated (any Actor)? = #isolation,
                   _ body: (SecretService) async throws -> T) async throws -> T {
    let client = try await SecretService.connect(address: bus.address, algorithm: algorithm)
    do {
        let result = try await body(client)
        await client.close()
        return result
    } catch {
        await client.close()
        throw error
    }
}

extension Data {
    /// Whether the UTF-8 bytes of `text` occur anywhere in the data.
    func contains(text: String) -> Bool { range(of: Data(text.utf8)) != nil }
}

/// Whether `body` fails with `NoSuchObject` (the collection is unavailable or unknown).
func failsWithNoSuchObject(_ body: () async throws -> Void) async -> Bool {
    do {
        try await body()
        return false
    } catch let error as SecretServiceError {
        return errorName(error) == SecretErrorNames.noSuchObject
    } catch {
        return false
    }
}
