// SPDX-License-Identifier: Apache-2.0
// security(1)'s lock-keychain, unlock-keychain and set-keychain-password, over collections.

import ArgumentParser
import DBusWire
import Foundation
import SecretCrypto
import SecretServiceClient
import SecretServiceProtocol

extension SecretService {
    /// The named collection, or the default one when `name` is `nil`.
    func collectionOrDefault(_ name: String?) async throws -> ObjectPath {
        if let name { return try await resolveCollection(name) }
        guard let path = try await defaultCollectionPath() else {
            throw CofferError(.noSuchKeychain, "A default keychain could not be found.")
        }
        return path
    }

    /// Every collection a "lock all" locks: all but the in-memory `session` collection (found through its alias,
    /// and by its id for providers without the alias).
    ///
    /// gnome-keyring never locks `session` (it answers Lock with the path but the collection stays unlocked), so
    /// clients expect it to stay usable; cofferd does lock it when asked by name, and then only an approval prompt
    /// unlocks it again, which a headless session cannot answer. So locking everything leaves it alone, and
    /// `lock-keychain session` is the way to lock it deliberately.
    func collectionsToLockAll() async throws -> [ObjectPath] {
        let session = try? await readAlias(SecretServiceNames.sessionCollection)
        return try await collections().filter {
            $0 != session && CollectionReference(path: $0).id != SecretServiceNames.sessionCollection
        }
    }
}

struct LockKeychain: CofferCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock-keychain", abstract: "Lock a keychain (default: the default one), or all with -a.",
        discussion: "-a locks every keychain except the in-memory 'session' collection, which has no password and "
            + "stays unlocked as under gnome-keyring; name it (lock-keychain session) to lock it anyway. On cofferd "
            + "it then unlocks only through the provider's approval prompt.")

    @Flag(name: .customShort("a"), help: "Lock every keychain but the in-memory 'session' collection.")
    var all = false
    @OptionGroup var output: OutputOptions
    @Argument(help: ArgumentHelp("The collection: alias, label, id or object path.", valueName: "keychain"))
    var keychain: String?

    func execute() async throws {
        if all, keychain != nil { throw CofferError.badArguments("give either -a or a keychain, not both") }
        try await ProviderConnection.with { service in
            let targets = all ? try await service.collectionsToLockAll()
                : [try await service.collectionOrDefault(keychain)]
            let locked = try await service.lock(targets)
            if output.json { try JSONOutput.print(["locked": locked.map(\.rawValue)]) }
        }
    }
}

struct UnlockKeychain: CofferCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock-keychain", abstract: "Unlock a keychain (default: the default one).",
        discussion: "The password is read at a prompt that does not echo, or as the first line of stdin, and "
            + "checked by the provider (a wrong one exits with status 51). With -u the provider asks for it in its "
            + "own dialogue instead; providers without the master-password interface always do. In a fresh account "
            + "(no default keychain) it makes 'login' the default: an existing 'login' is unlocked, otherwise it is "
            + "created with the password given (asked twice at a terminal).")

    @Flag(name: .customShort("u"), help: "Let the provider prompt for the password.")
    var providerPrompt = false
    @Option(name: .customShort("p"), help: ArgumentHelp(
        "The password (visible to other processes; prefer the prompt or stdin).", valueName: "password"))
    var password: String?
    @OptionGroup var output: OutputOptions
    @Argument(help: ArgumentHelp("The collection: alias, label, id or object path.", valueName: "keychain"))
    var keychain: String?

    func execute() async throws {
        try await ProviderConnection.with { service in
            if keychain == nil, try await service.defaultCollectionPath() == nil,
               let created = try await FirstKeychain(providerPrompt: providerPrompt, password: password)
                .makeDefault(service) {
                if output.json { try JSONOutput.print(["created": created.rawValue, "unlocked": created.rawValue]) }
                return
            }
            let path = try await service.collectionOrDefault(keychain)
            if providerPrompt {
                try await promptedUnlock(path, service)
            } else {
                let secret = try password.map { try SecretInput.fromArgv($0, "-p") }
                    ?? SecretInput.read(prompt: "password to unlock keychain: ", piped: .firstLine)
                do {
                    try await service.unlock(path, password: secret)
                } catch SecretServiceError.unknownMethod, SecretServiceError.notSupported {
                    try await promptedUnlock(path, service)  // a provider without the private interface
                } catch SecretServiceError.denied, SecretServiceError.accessDenied {
                    throw CofferError(.authenticationFailed, "The user name or passphrase you entered is not correct.")
                }
            }
            if output.json { try JSONOutput.print(["unlocked": path.rawValue]) }
        }
    }

    private func promptedUnlock(_ path: ObjectPath, _ service: SecretService) async throws {
        let unlocked = try await service.unlock([path])
        guard unlocked.contains(path) else { throw CofferError(.locked, "the keychain is still locked") }
    }
}

struct SetKeychainPassword: CofferCommand {
    static let configuration = CommandConfiguration(
        commandName: "set-keychain-password", abstract: "Change a keychain's password (default: the default one).",
        discussion: "The old and the new password are read at prompts that do not echo (the new one twice), or as "
            + "the first two lines of stdin. With --prompt the provider asks in its own dialogue.")

    @Option(name: .customShort("o"), help: ArgumentHelp("The old password (visible to other processes).", valueName: "password"))
    var oldPassword: String?
    @Option(name: .customShort("p"), help: ArgumentHelp("The new password (visible to other processes).", valueName: "password"))
    var newPassword: String?
    @Flag(name: .customLong("prompt"), help: "Let the provider prompt for both passwords.")
    var providerPrompt = false
    @OptionGroup var output: OutputOptions
    @Argument(help: ArgumentHelp("The collection: alias, label, id or object path.", valueName: "keychain"))
    var keychain: String?

    func execute() async throws {
        try await ProviderConnection.with { service in
            let path = try await service.collectionOrDefault(keychain)
            if providerPrompt {
                try await service.changePasswordWithPrompt(of: path)
            } else {
                let (old, new) = try readPasswords()
                do {
                    if let result = try await service.changePasswordReporting(of: path, from: old, to: new) {
                        if !result.rekeyed { Self.warnMasterKeyKept(result.unchanged) }
                    } else {
                        try await service.changePassword(of: path, from: old, to: new)
                    }
                } catch SecretServiceError.denied, SecretServiceError.accessDenied {
                    throw CofferError(.authenticationFailed, "The user name or passphrase you entered is not correct.")
                }
            }
            if output.json { try JSONOutput.print(["changed": path.rawValue]) }
        }
    }

    /// cofferd kept the master key so the listed key slots keep working (docs/KEY-SLOTS.md); say what that means.
    static func warnMasterKeyKept(_ slots: [UInt32]) {
        Console.warning("the password changed, but the master key was kept for key slot(s) "
            + slots.map(String.init).joined(separator: ", ")
            + " (see `coffer key-slots list`): a copy of the keychain file made before this change still opens "
            + "with the old password")
    }

    private func readPasswords() throws -> (SecretBytes, SecretBytes) {
        let fromArgv = SecretInput.fromArgv
        switch (oldPassword, newPassword) {
        case let (old?, new?):
            return (try fromArgv(old, "-o"), try fromArgv(new, "-p"))
        case let (old?, nil):
            return (try fromArgv(old, "-o"), try SecretInput.readNewPassword(
                prompt: "New Password: ", confirmation: "Retype New Password: "))
        case let (nil, new?):
            return (try SecretInput.read(prompt: "Old Password: ", piped: .firstLine), try fromArgv(new, "-p"))
        case (nil, nil):
            if Console.isTerminal(STDIN_FILENO) {
                let old = try SecretInput.read(prompt: "Old Password: ")
                return (old, try SecretInput.readNewPassword(prompt: "New Password: ", confirmation: "Retype New Password: "))
            }
            let lines = try SecretInput.readPasswords(prompts: ["Old Password: ", "New Password: "])
            return (lines[0], lines[1])
        }
    }
}
