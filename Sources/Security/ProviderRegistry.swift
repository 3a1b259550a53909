// SPDX-License-Identifier: Apache-2.0
// One shared, lazily opened client connection per bus, and the translation of client errors to OSStatus.

import Foundation
import SecretCrypto
import SecretServiceClient
import SecretServiceProtocol
import Synchronization
import CofferKeychainConfiguration

/// A failed keychain operation, carrying the status the `SecItem…` function returns.
struct KeychainFailure: Error, Equatable {
    let status: OSStatus
    init(_ status: OSStatus) { self.status = status }
}

/// The shared connections, keyed by bus (``KeychainConfiguration/busKey``).
///
/// A failed connect is not cached, and a connection whose provider vanished is dropped, so the next call
/// reconnects (a restarted daemon is picked up without restarting the program). The table is read synchronously
/// too: a blocking `SecItem…` call looks up the connection whose loop thread will run it before it blocks.
final class ProviderRegistry: Sendable {
    static let shared = ProviderRegistry()

    private enum Entry {
        case connecting(Task<SecretService, any Error>)
        case ready(SecretService)
    }

    /// The one owner of the table; held only for lookups and swaps, never across an await.
    private let entries = Mutex<[String: Entry]>([:])

    /// The connected client for `key`'s bus, if one is open; never waits.
    func readyClient(for key: String) -> SecretService? {
        entries.withLock { entries in
            guard case .ready(let client) = entries[key] else { return nil }
            return client
        }
    }

    /// The client for `configuration`'s bus, connecting on first use.
    /// - Throws: ``KeychainFailure`` (`errSecNotAvailable` when there is no bus or no provider).
    func client(for configuration: KeychainConfiguration) async throws -> SecretService {
        let key = configuration.busKey
        let found: Entry = entries.withLock { entries in
            if let entry = entries[key] { return entry }
            let address = configuration.busAddress
            let plain = configuration.allowsPlainSession
            // Connecting happens before any connection loop exists, so it runs on the connect thread rather than
            // the pool (see OperationThread); from then on the connection's own loop runs everything, its signal
            // pump included.
            let task = Task(executorPreference: OperationThread.shared) {
                try await SecretService.connect(address: address, algorithm: .dh, allowPlainFallback: plain,
                                                signalsOnConnectionLoop: true)
            }
            entries[key] = .connecting(task)
            return .connecting(task)
        }
        let task: Task<SecretService, any Error>
        switch found {
        case .ready(let client): return client
        case .connecting(let pending): task = pending
        }
        do {
            let client = try await task.value
            entries.withLock { entries in
                if case .connecting(let pending) = entries[key], pending == task { entries[key] = .ready(client) }
            }
            return client
        } catch {
            entries.withLock { entries in
                if case .connecting(let pending) = entries[key], pending == task { entries[key] = nil }
            }
            throw Self.failure(for: error, interactionAllowed: true)
        }
    }

    /// Forgets (and closes) the connection to `key`'s bus if it is still `client`, after it proved broken.
    func discard(key: String, client: SecretService) async {
        let removed = entries.withLock { entries -> Bool in
            guard case .ready(let current) = entries[key], current === client else { return false }
            entries[key] = nil
            return true
        }
        if removed { await client.close() }
    }

    /// Closes and forgets the connection to `key`'s bus.
    func close(key: String) async {
        switch entries.withLock({ $0.removeValue(forKey: key) }) {
        case .ready(let client): await client.close()
        case .connecting(let task): if let client = try? await task.value { await client.close() }
        case nil: break
        }
    }

    // MARK: - Error translation (mapping §6.8)

    /// The status for an error the client threw.
    /// - Parameters:
    ///   - error: what was thrown.
    ///   - interactionAllowed: whether the caller allowed prompts (`IsLocked` means -25308 only when not).
    static func failure(for error: any Error, interactionAllowed: Bool) -> KeychainFailure {
        switch error {
        case let failure as KeychainFailure:
            return failure
        case let error as SecretServiceClientError:
            switch error {
            case .noProvider, .providerVanished, .transport: return KeychainFailure(errSecNotAvailable)
            case .dismissed: return KeychainFailure(errSecUserCanceled)
            case .promptNotShown: return KeychainFailure(errSecInteractionNotAllowed)
            case .algorithmNotSupported: return KeychainFailure(errSecUnimplemented)
            case .unexpectedReply: return KeychainFailure(errSecInternalComponent)
            }
        case let error as SecretServiceError:
            switch error {
            case .isLocked: return KeychainFailure(interactionAllowed ? errSecAuthFailed : errSecInteractionNotAllowed)
            case .noSuchObject: return KeychainFailure(errSecItemNotFound)
            case .accessDenied, .denied: return KeychainFailure(errSecAuthFailed)
            case .invalidArgs: return KeychainFailure(errSecParam)
            case .notSupported: return KeychainFailure(errSecUnimplemented)
            default: return KeychainFailure(errSecInternalComponent)
            }
        case is CryptoError:
            return KeychainFailure(errSecDecode)
        default:
            return KeychainFailure(errSecInternalComponent)
        }
    }

    /// Whether `status` means the connection itself is unusable.
    static func isConnectionLoss(_ status: OSStatus) -> Bool { status == errSecNotAvailable }
}
