// SPDX-License-Identifier: Apache-2.0
// Finds or makes an application's portal secret in `login`.

import DBusWire
import SecretCrypto
import SecretServiceProtocol
import SecretStore

/// Each sandboxed application's secret, kept in `login` the way gnome-keyring (`gkd-secret-portal.c`) and oo7
/// (`oo7-portal`) keep it, so a secret either of them made, imported with its keyring, is the one handed out: an
/// item whose attributes are exactly `app_id=<the application's id>`, holding 64 random bytes.
struct PortalSecretIssuer {
    let context: DaemonContext

    /// gnome-keyring keeps portal secrets in `login` only; oo7 in its default collection, which is `login` too.
    static let collection = LoginKeyring.collectionID
    static let byteCount = 64

    static func attributes(of appID: String) -> [String: String] { ["app_id": appID] }

    enum Failure: Error, Equatable, CustomStringConvertible {
        case noLogin
        case unlockDismissed
        case store(String)

        var description: String {
            switch self {
            case .noLogin: "there is no login collection"
            case .unlockDismissed: "the login collection stayed locked"
            case .store(let reason): reason
            }
        }
    }

    /// The application's secret, made and stored on its first request. Requests for one application run one at a
    /// time: two first requests at once would otherwise make two secrets and hand out both.
    func secret(for appID: String, caller: BusName) async -> Result<SecretBytes, Failure> {
        await context.portalSecrets.run(appID) { await findOrCreate(appID, caller: caller) }
    }

    private func findOrCreate(_ appID: String, caller: BusName) async -> Result<SecretBytes, Failure> {
        let store = context.store
        let login = Self.collection
        guard await store.collectionIDs().contains(login) else { return .failure(.noLogin) }
        do {
            if try await store.collectionInfo(login).isLocked {
                // The usual unlock dialogue, shared with any unlock of `login` already asking.
                let context = context
                let unlocked = await context.unlocks.unlock(login) {
                    await UnlockFlow(context: context).run(login, windowID: "", caller: caller)
                }
                guard unlocked else { return .failure(.unlockDismissed) }
            }
            let attributes = Self.attributes(of: appID)
            if let existing = try await store.search(in: login, attributes).first {
                return .success(try await store.secret(collection: login, item: existing).value)
            }
            let secret = try SecureRandom.secretBytes(count: Self.byteCount)
            do {
                _ = try await store.createItem(in: login, label: "Secret Portal token for \(appID)",
                                               attributes: attributes,
                                               secret: StoredSecret(value: secret, contentType: "text/plain"),
                                               replace: false)
            } catch {
                secret.wipe()
                throw error
            }
            return .success(secret)
        } catch {
            return .failure(.store("\(error)"))
        }
    }
}
