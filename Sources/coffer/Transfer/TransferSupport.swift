// SPDX-License-Identifier: Apache-2.0
// What import, export and restore share: reading the input file, finding or creating the collection, error mapping.

import DBusWire
import Foundation
import KeyringFiles
import SecretServiceClient
import SecretServiceProtocol
import SecretStore

enum TransferSupport {
    /// Keyring files and archives beyond this size are refused before reading (real ones are kilobytes).
    static let maximumFileSize = 256 << 20

    /// Reads a whole input file through one descriptor: what is parsed and verified is what was checked for size.
    /// - Throws: ``CofferError`` with ``ExitStatus/noInput`` when it is missing, unreadable, not a regular file or
    ///   too large.
    static func readFile(_ path: String) throws -> [UInt8] {
        do {
            guard let bytes = try readWholeFile(path, limit: maximumFileSize) else {
                throw CofferError(.noInput, "cannot read \(path): no such file or not accessible")
            }
            return bytes
        } catch let error as CofferError {
            throw error
        } catch {
            throw CofferError(.noInput, "cannot read \(path): \(error)")
        }
    }

    /// The collection to import into: `name` (an alias, label, id or path; created with that label when nothing
    /// matches), or the default collection (created when the alias is unset). It is unlocked if needed.
    /// - Parameter secrets: gives the new collection's password when `name` must be created.
    static func targetCollection(_ name: String?, client: SecretService, secrets: inout SecretSequence) async throws
        -> ObjectPath {
        let path: ObjectPath
        if let name {
            do {
                path = try await client.resolveCollection(name)
            } catch let error as CofferError where error.status == .noSuchKeychain {
                path = try await createCollection(name, client: client, secrets: &secrets)
            }
        } else if let existing = try await client.defaultCollectionPath() {
            path = existing
        } else {
            path = try await client.defaultCollection()
        }
        if try await client.collectionProperties(path).locked {
            try await client.unlock([path])
        }
        return path
    }

    /// Creates the collection `label` the way `create-keychain` does: with a password the user gives (through the
    /// private master-password interface, so no provider prompt is needed and it works headless), falling back to
    /// the provider's own prompt when the provider lacks that interface.
    private static func createCollection(_ label: String, client: SecretService, secrets: inout SecretSequence)
        async throws -> ObjectPath {
        let password = try secrets.readNewPassword(
            prompt: "password for new keychain '\(label)': ", confirmation: "retype password for new keychain: ",
            purpose: "the password of the new keychain '\(label)'")
        do {
            return try await client.createCollection(label: label, password: password)
        } catch SecretServiceError.unknownMethod, SecretServiceError.notSupported {
            return try await client.createCollection(label: label)
        }
    }

    /// Maps a parser error to the CLI's failure classes.
    static func failure(_ error: KeyringFileError, file: String) -> CofferError {
        switch error {
        case .wrongPassword: return CofferError(.authenticationFailed, "\(file): \(error)")
        case .passwordRequired: return CofferError(.cancelled, "\(file): \(error)")
        default: return CofferError(.badData, "\(file): \(error)")
        }
    }
}
