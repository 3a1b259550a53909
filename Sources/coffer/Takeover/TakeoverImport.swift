// SPDX-License-Identifier: Apache-2.0
// The last step of takeover: the harvested keyrings into cofferd, each into its collection, without duplicates.

import DBusWire
import KeyringFiles
import SecretCrypto
import SecretServiceClient
import SecretServiceProtocol

enum TakeoverImport {
    /// Imports every keyring into the running cofferd and records the files imported.
    /// - Parameters:
    ///   - keyrings: what was read from the old provider.
    ///   - password: the login password: it unlocks cofferd's `login`, and protects a collection created here.
    ///   - state: gets one record per imported file, saved after each.
    static func run(_ keyrings: [HarvestedKeyring], password: SecretBytes, state: inout TakeoverState,
                    directories: UserDirectories) async throws {
        try await ProviderConnection.with { client in
            let login = try await prepareLogin(client, password: password)
            for harvested in keyrings {
                let collection = try await collection(for: harvested.target, login: login, client: client,
                                                      password: password)
                var report = ImportReport(file: harvested.source, format: harvested.keyring.format.rawValue,
                                          collection: harvested.target.name)
                try await KeyringImporter(client: client, collection: collection)
                    .run(harvested.keyring.items, into: &report) { _ in }
                for skipped in report.skipped { Console.warning("\(harvested.source): skipped '\(skipped.label)': "
                    + skipped.reason) }
                Console.print("\(harvested.source): \(report.summary)")
                if let fingerprint = harvested.fingerprint {
                    state.recordImport(ImportedFile(path: harvested.source, size: fingerprint.size,
                                                    modified: fingerprint.modified,
                                                    collection: harvested.target.name,
                                                    items: harvested.keyring.items.count))
                    try state.save(directories.takeoverState)
                }
            }
        }
    }

    /// Before any change, when cofferd already runs: its `login` must exist and open with the password, or the
    /// import at the end could not happen.
    static func checkLogin(password: SecretBytes) async throws {
        _ = try await ProviderConnection.with { client in
            try await prepareLogin(client, password: password, settingDefault: false)
        }
    }

    /// cofferd's `login`, unlocked with the login password; the `default` alias points at it when unset. cofferd
    /// started by takeover created it (`--unlock`); one that ran before may hold it locked.
    private static func prepareLogin(_ client: SecretService, password: SecretBytes, settingDefault: Bool = true)
        async throws -> ObjectPath {
        let path: ObjectPath
        if let existing = try await client.readAlias(SecretServiceNames.loginCollection) {
            path = existing
        } else if let byID = try await client.collections().first(where: { CollectionReference(path: $0).id == SecretServiceNames.loginCollection }) {
            path = byID
        } else {
            throw CofferError(.noSuchKeychain, "cofferd has no login collection; start it once with "
                + "`cofferd --unlock` (or log in through pam_coffer) and run takeover again")
        }
        if try await client.collectionProperties(path).locked {
            do {
                try await client.unlock(path, password: password)
            } catch {
                throw CofferError(.authenticationFailed, "the login password does not unlock cofferd's existing login "
                    + "collection; unlock it (`coffer unlock-keychain login`) and run takeover again")
            }
        }
        if settingDefault, try await client.defaultCollectionPath() == nil {
            try await client.setAlias("default", to: path)
        }
        return path
    }

    private static func collection(for target: HarvestedKeyring.Target, login: ObjectPath, client: SecretService,
                                   password: SecretBytes) async throws -> ObjectPath {
        switch target {
        case .login:
            return login
        case .session:
            return try await client.resolveCollection("session")
        case .named(let label):
            do {
                let path = try await client.resolveCollection(label)
                if try await client.collectionProperties(path).locked {
                    try await client.unlock(path, password: password)
                }
                return path
            } catch let error as CofferError where error.status == .noSuchKeychain {
                return try await client.createCollection(label: label, password: password)
            }
        }
    }
}
