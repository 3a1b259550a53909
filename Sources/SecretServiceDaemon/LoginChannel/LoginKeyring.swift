// SPDX-License-Identifier: Apache-2.0
// What the login password does to the `login` collection: unlock it, create it on first use, follow a change.

public import Logging
public import SecretCrypto
public import SecretStore
import SecretServiceProtocol

/// The outcome of applying a login password, as the login channel reports it (docs/PAM.md lists the codes).
public enum LoginOutcome: UInt8, Sendable, Equatable, CaseIterable {
    /// `login` is unlocked (or was already, and the password is its password).
    case unlocked = 0
    /// There was no `login`; it was created with the password and made the `default` alias if none was set.
    case created = 1
    /// `login`'s password changed from the old to the new one.
    case changed = 2
    /// The password (the old one, for a change) is not `login`'s: nothing changed.
    case wrongPassword = 3
    /// `login` cannot be used: its file is out of service, or a change found no `login` to change.
    case unavailable = 4
    /// Storage or memory failed; `login` and its password are as they were.
    case failed = 5
    /// The request was malformed, or carried an empty password, which never creates or protects `login`.
    case refused = 6
}

/// Applies login passwords to the store's `login` collection: `cofferd --unlock` at start and the PAM module's
/// requests on the login channel use the same rules.
public struct LoginKeyring: Sendable {
    /// The collection the login password protects (the name gnome-keyring and oo7 use).
    public static let collectionID = SecretServiceNames.loginCollection

    let store: SecretStore
    let logger: Logger

    public init(store: SecretStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    /// Unlocks `login` with `password`, or creates it with `password` when there is none.
    /// - Parameter announcing: whether clients may hold proxies yet (see ``SecretStore/unlock(_:password:announcing:)``).
    public func unlockOrCreate(with password: SecretBytes, announcing: Bool = true) async -> LoginOutcome {
        let id = Self.collectionID
        if await store.collectionIDs().contains(id) {
            do {
                // An unlocked collection would accept any password; check it so a drifted password is reported.
                let locked = try await store.collectionInfo(id).isLocked
                let matches = locked ? try await store.unlock(id, password: password, announcing: announcing)
                                     : try await store.checkPassword(of: id, password)
                if !matches { logger.error("the login password does not unlock the login collection") }
                return matches ? .unlocked : .wrongPassword
            } catch .noSuchObject {
                // The file failed verification; the store logged why and took it out of service.
                return .unavailable
            } catch {
                logger.error("the login collection could not be unlocked", metadata: ["error": "\(error)"])
                return .failed
            }
        }
        if await store.unavailableCollections().contains(where: { $0.id == id }) {
            logger.error("the login collection's file is unavailable; not creating a new one over it")
            return .unavailable
        }
        guard !password.isEmpty else {
            logger.error("not creating the login collection with an empty password")
            return .refused
        }
        do {
            _ = try await store.createCollection(label: "Login", alias: "", password: password, preferredID: id)
            logger.info("created the login collection")
            if await store.resolveAlias(SecretServiceNames.defaultAlias) == nil {
                try await store.setAlias(SecretServiceNames.defaultAlias, to: id)
            }
            return .created
        } catch {
            logger.error("the login collection could not be created", metadata: ["error": "\(error)"])
            return .failed
        }
    }

    /// Changes `login`'s password from `old` to `new` (the store's re-key: a new master key, the file rewritten).
    public func changePassword(from old: SecretBytes, to new: SecretBytes) async -> LoginOutcome {
        let id = Self.collectionID
        guard !new.isEmpty else {
            logger.error("not changing the login collection's password to an empty one")
            return .refused
        }
        guard await store.collectionIDs().contains(id) else {
            logger.notice("no login collection to change the password of")
            return .unavailable
        }
        do {
            guard try await store.changePassword(of: id, from: old, to: new) else {
                logger.error("the old login password does not match the login collection's; its password is unchanged")
                return .wrongPassword
            }
            logger.info("changed the login collection's password")
            return .changed
        } catch .noSuchObject {
            return .unavailable
        } catch {
            logger.error("the login collection's password could not be changed", metadata: ["error": "\(error)"])
            return .failed
        }
    }
}
