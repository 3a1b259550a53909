// SPDX-License-Identifier: Apache-2.0
// Connecting to the Secret Service provider and naming collections the way users do (alias, label, id, path).

import DBusWire
import Foundation
import SecretServiceClient
import SecretServiceProtocol

/// The provider on the session bus (`DBUS_SESSION_BUS_ADDRESS`), connected with an encrypted session.
enum ProviderConnection {
    /// Connects, runs `body`, and closes the connection whether `body` throws or not.
    /// - Throws: ``SecretServiceClientError/noProvider`` (mapped to ``ExitStatus/noProvider``) and `body`'s errors.
    static func with<T>(_ body: (SecretService) async throws -> T) async throws -> T {
        let service = try await SecretService.connect()
        do {
            let result = try await body(service)
            await service.close()
            return result
        } catch {
            await service.close()
            throw error
        }
    }

    /// Connects and closes again: throws the same "no bus" or "no provider" failure every verb reports, for callers
    /// whose library only said "not available" (the Keychain library's `errSecNotAvailable`).
    static func requireProvider() async throws {
        try await with { _ in }
    }
}

/// A collection as the commands show and find it.
struct CollectionReference: Sendable, Hashable {
    /// The canonical path, `/org/freedesktop/secrets/collection/<id>`.
    var path: ObjectPath
    /// The last path element (cofferd's and gnome-keyring's file name stem).
    var id: String { String(path.rawValue.split(separator: "/").last ?? "") }
}

extension SecretService {
    /// Finds the collection a user named: an alias (`default`, `login`, `session`), a label, the id (last path
    /// element), or a full object path. A security(1)-style file name (`login.keychain`, `/x/login.keychain-db`) is
    /// reduced to its stem first.
    /// - Parameter name: what the user typed.
    /// - Returns: the collection's canonical path.
    /// - Throws: ``CofferError`` with ``ExitStatus/noSuchKeychain`` when nothing matches.
    func resolveCollection(_ name: String) async throws -> ObjectPath {
        if name.hasPrefix("/org/freedesktop/secrets/"), let path = ObjectPath(name) {
            if let canonical = try await canonicalPath(of: path) { return canonical }
            throw CofferError.noSuchKeychain(name)
        }
        let stem = Self.keychainStem(name)
        if SecretObjectPath.isValidAliasOrID(stem), let aliased = try await readAlias(stem) { return aliased }
        let all = try await collections()
        if let byID = all.first(where: { CollectionReference(path: $0).id == stem }) { return byID }
        for path in all {
            let label = try await collectionProperties(path).label
            if label == name || label == stem { return path }
        }
        throw CofferError.noSuchKeychain(name)
    }

    /// The default collection's canonical path, or `nil` when the `default` alias is unset.
    func defaultCollectionPath() async throws -> ObjectPath? {
        try await readAlias(SecretServiceNames.defaultAlias)
    }

    /// The canonical path behind an alias path, or the path itself when it names an existing collection.
    private func canonicalPath(of path: ObjectPath) async throws -> ObjectPath? {
        let aliasPrefix = "/org/freedesktop/secrets/aliases/"
        if path.rawValue.hasPrefix(aliasPrefix) {
            return try await readAlias(String(path.rawValue.dropFirst(aliasPrefix.count)))
        }
        return try await collections().contains(path) ? path : nil
    }

    /// `login.keychain-db` → `login`; `/home/a/Library/Keychains/work.keychain` → `work`.
    static func keychainStem(_ name: String) -> String {
        var stem = name.split(separator: "/").last.map(String.init) ?? name
        for suffix in [".keychain-db", ".keychain"] where stem.hasSuffix(suffix) {
            stem.removeLast(suffix.count)
        }
        return stem
    }
}

extension SecretObjectPath {
    /// Whether `text` can be an alias or collection id in an object path (letters, digits, `_`).
    static func isValidAliasOrID(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
        }
    }
}
