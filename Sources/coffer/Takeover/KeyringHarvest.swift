// SPDX-License-Identifier: Apache-2.0
// Reads every keyring of the old provider before it is stopped: gnome-keyring's files where they can be
// decrypted, and the running provider's D-Bus API for the rest.

import DBusWire
import Foundation
import KeyringFiles
import SecretCrypto
import SecretServiceClient

/// A keyring read from the old provider, ready to import.
struct HarvestedKeyring: Sendable {
    /// Where cofferd should put it.
    enum Target: Sendable, Equatable {
        /// cofferd's `login` collection (the `default` alias points there).
        case login
        /// cofferd's in-memory `session` collection: the old provider's items that were never on disk.
        case session
        /// A collection with this label, created with the login password when missing.
        case named(String)

        var name: String {
            switch self {
            case .login: "login"
            case .session: "session"
            case .named(let label): label
            }
        }
    }

    /// The file read, or the collection path for what came over D-Bus.
    var source: String
    var target: Target
    var keyring: ImportedKeyring
    /// Set for files, so that the import can be recorded and not repeated.
    var fingerprint: (size: Int, modified: Double)?
}

/// The old provider's keyrings that could not be read at all; takeover stops before changing anything then.
struct UnreadableKeyring: Sendable {
    var source: String
    var reason: String
}

enum KeyringHarvest {
    /// The keyring files in gnome-keyring's directory that have not been imported in their current form.
    static func pendingFiles(_ directories: UserDirectories, state: TakeoverState) -> [String] {
        CompetitorSurvey.listing(directories.keyrings)
            .filter { $0.hasSuffix(".keyring") }
            .map { directories.keyrings + "/" + $0 }
            .filter { !state.alreadyImported($0) }
    }

    /// Reads `files` with `password`; what cannot be decrypted is looked for in `provider` (the old provider,
    /// still running), which also gives the items it holds only in memory.
    /// - Returns: what was read, and what could be read neither way.
    static func run(files: [String], password: SecretBytes?, provider: SecretService?) async throws
        -> (keyrings: [HarvestedKeyring], unreadable: [UnreadableKeyring]) {
        var keyrings: [HarvestedKeyring] = []
        var viaBus: [(file: String, reason: String)] = []
        var wrongLogin: UnreadableKeyring?
        for file in files {
            let stem = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
            let fingerprint = ImportedFile.fingerprint(file)
            do {
                let bytes = try TransferSupport.readFile(file)
                let keyring = try KeyringFile.parse(bytes, password: password)
                keyrings.append(HarvestedKeyring(source: file, target: target(stem: stem, label: keyring.label),
                                                 keyring: keyring, fingerprint: fingerprint))
            } catch KeyringFileError.wrongPassword where stem == "login" {
                // The password becomes cofferd's login password; reading login over D-Bus instead would hide a
                // typo that locks the user out of cofferd at the next login.
                wrongLogin = UnreadableKeyring(source: file, reason: "the password given does not unlock it (it "
                    + "becomes cofferd's login password, so it must be this keyring's password)")
            } catch let error as KeyringFileError {
                viaBus.append((file, "\(error)"))
            } catch let error as CofferError {
                viaBus.append((file, error.message))
            }
        }
        if let wrongLogin { return ([], [wrongLogin]) }
        var unreadable: [UnreadableKeyring] = []
        guard let provider else {
            return (keyrings, viaBus.map {
                // Without the password only the hashed attributes of the clear-text index are readable, and
                // those cannot be turned back into values: nothing useful can be salvaged.
                UnreadableKeyring(source: $0.file, reason: "\($0.reason); no running provider to read it from (the "
                    + "file's readable part holds only hashed attributes, which cannot be recovered)")
            })
        }
        let collections = try await provider.collections()
        for (file, reason) in viaBus {
            let stem = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
            // gnome-keyring names each collection after its file: /org/freedesktop/secrets/collection/<stem>.
            guard let path = collections.first(where: { CollectionReference(path: $0).id == stem }) else {
                unreadable.append(UnreadableKeyring(source: file, reason: "\(reason); the running provider does "
                    + "not serve it"))
                continue
            }
            do {
                var read = try await readCollection(path, from: provider)
                read.source = file
                read.target = target(stem: stem, label: read.keyring.label)
                read.fingerprint = ImportedFile.fingerprint(file)
                keyrings.append(read)
            } catch let error as CofferError {
                unreadable.append(UnreadableKeyring(source: file, reason: "\(reason); \(error.message)"))
            }
        }
        // The session collection lives only in the old provider's memory.
        if let session = collections.first(where: { CollectionReference(path: $0).id == "session" }),
           let read = try? await readCollection(session, from: provider), !read.keyring.items.isEmpty {
            keyrings.append(HarvestedKeyring(source: session.rawValue, target: .session, keyring: read.keyring))
        }
        return (keyrings, unreadable)
    }

    /// gnome-keyring's `login` keyring becomes cofferd's `login`; another keyring keeps its label.
    static func target(stem: String, label: String?) -> HarvestedKeyring.Target {
        stem == "login" ? .login : .named(label.flatMap { $0.isEmpty ? nil : $0 } ?? stem)
    }

    /// Every item of an unlocked collection, with its secret. A locked one would need the provider's prompt,
    /// which takeover does not show on the user's behalf.
    private static func readCollection(_ path: ObjectPath, from provider: SecretService) async throws
        -> HarvestedKeyring {
        let properties = try await provider.collectionProperties(path)
        guard !properties.locked else {
            throw CofferError(.locked, "it is locked in the running provider; unlock it there (for example with "
                + "seahorse) and run takeover again")
        }
        let secrets = try await provider.secrets(of: properties.items)
        var items: [ImportedItem] = []
        for item in properties.items {
            let itemProperties = try await provider.itemProperties(item)
            guard let secret = secrets[item] else {
                throw CofferError(.locked, "the provider did not give the secret of '\(itemProperties.label)'")
            }
            items.append(ImportedItem(label: itemProperties.label, attributes: itemProperties.attributes,
                                      secret: secret.value, contentType: secret.contentType,
                                      created: itemProperties.created, modified: itemProperties.modified))
        }
        let keyring = ImportedKeyring(format: .gnomeKeyringBinary, label: properties.label, items: items)
        return HarvestedKeyring(source: path.rawValue, target: .named(properties.label), keyring: keyring)
    }
}
