// SPDX-License-Identifier: Apache-2.0
// One shared, lazily opened client connection per bus, and the translation of client errors to OSStatus.

import Foundation
import SecretCrypto
import SecretServiceClient
import SecretServiceProtocol
import CofferKeychainConfiguration

/// A failed keychain operation, carrying the status the `SecItem…` function returns.
struct KeychainFailure: Error, Equatable {
    let status: OSStatus
    init(_ status: OSStatus) { self.status = status }
}

/// The shared connections, keyed by bus (``KeychainConfiguration/busKey``).
///
/// A failed connect is not cached, and a connection whose provider vanished is dropped, so the next call
/// reconnects (a restarted daemon is picked up without restarting the program).
actor ProviderRegistry {
    static let shared = ProviderRegistry()

    private var clients: [String: Task<SecretService, any Error>] = [:]

    /// The client for `configuration`'s bus, connecting on first use.
    /// - Throws: ``KeychainFailure`` (`errSecNotAvailable` when there is no bus or no provider).
    func client(for configuration: KeychainConfiguration) async throws -> SecretService {
        let key = configuration.busKey
        let task: Task<SecretService, any Error>
        if let existing = clients[key] {
            task = existing
        } else {
            let address = configuration.busAddress
            let plain = configuration.allowsPlainSession
            // Pinned to the operation thread like the caller, so connecting never waits for a pool thread.
            task = Task(executorPreference: OperationThread.shared) {
                try await SecretService.connect(address: address, algorithm: .dh, allowPlainFallback: plain,
                                                signalExecutor: OperationThread.signals)
            }
            clients[key] = task
        }
        do {
            return try await task.value
        } catch {
            if clients[key] == task { clients[key] = nil }
            throw Self.failure(for: error, interactionAllowed: true)
        }
    }

    /// Forgets (and closes) the connection to `key`'s bus if it is still `client`, after it proved broken.
    func discard(key: String, client: SecretService) async {
        guard let task = clients[key], let current = try? await task.value, current === client else { return }
        clients[key] = nil
        await client.close()
    }

    /// Closes and forgets the connection to `key`'s bus.
    func close(key: String) async {
        guard let task = clients.removeValue(forKey: key) else { return }
        if let client = try? await task.value { await client.close() }
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
