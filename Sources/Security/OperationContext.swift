// SPDX-License-Identifier: Apache-2.0
// Runs one SecItem operation against the shared client and turns every failure into an OSStatus.

import DBusWire
import Foundation
import SecretServiceClient
import SecretServiceProtocol
import CofferKeychainConfiguration

/// What one operation needs: the settings, the client, and whether it may prompt.
struct OperationContext: Sendable {
    let configuration: KeychainConfiguration
    let client: SecretService
    let interaction: AuthenticationUI
    /// The access groups a query that names none searches, resolved once per operation: resolving reads the
    /// environment and the program's name, too slow to repeat for every candidate.
    let searchedGroups: [String]

    init(configuration: KeychainConfiguration, client: SecretService, interaction: AuthenticationUI) {
        self.configuration = configuration
        self.client = client
        self.interaction = interaction
        searchedGroups = configuration.resolvedAccessGroups
    }

    /// Runs `body` with a connected client.
    ///
    /// A connection that turns out dead (the provider restarted, the bus went away) is dropped and the operation
    /// is tried once more on a fresh one, so long-running programs survive a daemon restart.
    static func perform<T: Sendable>(
        _ configuration: KeychainConfiguration, interaction: AuthenticationUI,
        _ body: @Sendable (OperationContext) async throws -> T
    ) async -> Result<T, KeychainFailure> {
        var attempt = 0
        while true {
            attempt += 1
            let client: SecretService
            do {
                client = try await ProviderRegistry.shared.client(for: configuration)
            } catch {
                return .failure(ProviderRegistry.failure(for: error, interactionAllowed: interaction == .allow))
            }
            do {
                let context = OperationContext(configuration: configuration, client: client, interaction: interaction)
                // The connection's loop runs the whole operation: replies arrive on that thread and the code waiting
                // for them resumes there, with no hop to another thread per call.
                return .success(try await withTaskExecutorPreference(client.loopExecutor) {
                    try await body(context)
                })
            } catch {
                let failure = ProviderRegistry.failure(for: error, interactionAllowed: interaction == .allow)
                guard ProviderRegistry.isConnectionLoss(failure.status) else { return .failure(failure) }
                await ProviderRegistry.shared.discard(key: configuration.busKey, client: client)
                if attempt >= 2 { return .failure(failure) }
            }
        }
    }

    // MARK: - Locked collections and items

    /// Makes `paths` readable: unlocks them with a prompt when allowed, else fails with -25308 (or, for
    /// `kSecUseAuthenticationUISkip`, leaves them out).
    /// - Returns: the paths now unlocked.
    func unlocked(_ paths: [ObjectPath]) async throws -> [ObjectPath] {
        guard !paths.isEmpty else { return [] }
        switch interaction {
        case .fail: throw KeychainFailure(errSecInteractionNotAllowed)
        case .skip: return []
        case .allow: return try await client.unlock(paths)
        }
    }

    /// The collection new items go to, unlocked: the `default` alias, or for a synchronizable item the
    /// synchronized collection ``synchronizedCollection()`` chooses.
    func writableCollection(synchronizable: Bool) async throws -> ObjectPath {
        let collection: ObjectPath
        if synchronizable, let synchronized = try await synchronizedCollection() {
            collection = synchronized
        } else if interaction != .allow {
            // Creating the default collection asks for its password: without UI there is no default keychain.
            guard let existing = try await client.collection(alias: SecretServiceNames.defaultAlias) else {
                throw KeychainFailure(errSecNoDefaultKeychain)
            }
            collection = existing
        } else {
            do {
                collection = try await client.defaultCollection()
            } catch SecretServiceClientError.dismissed {
                throw KeychainFailure(errSecNoDefaultKeychain)
            }
        }
        if try await client.collectionProperties(collection).locked {
            guard interaction == .allow else { throw KeychainFailure(errSecInteractionNotAllowed) }
            try await client.unlock([collection])
        }
        return collection
    }

    /// The properties of `paths`, skipping items deleted meanwhile; every `GetAll` is in flight at once.
    func properties(of paths: [ObjectPath], expected: ItemClass?) async throws -> [StoredItem] {
        try await readableProperties(of: paths).compactMap { path, properties in
            StoredItem(path: path, properties: properties, expected: expected)
        }
    }

    /// The properties of `paths` fetched concurrently, in the order given, without the items that vanished.
    func readableProperties(of paths: [ObjectPath]) async throws -> [(ObjectPath, ItemProperties)] {
        var found: [(ObjectPath, ItemProperties)] = []
        for (path, outcome) in zip(paths, await client.itemProperties(of: paths)) {
            do {
                found.append((path, try outcome.get()))
            } catch SecretServiceError.noSuchObject, SecretServiceError.unknownMethod {
                // gnome-keyring (GDBus) answers UnknownMethod for a path with no object behind it.
                continue
            }
        }
        return found
    }
}
