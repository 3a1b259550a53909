// SPDX-License-Identifier: Apache-2.0
// `coffer key-slots`: list, add and remove the key slots of a collection, and unlock with a recovery key.

import ArgumentParser
import DBusWire
import Foundation
import SecretCrypto
import SecretServiceClient
import SecretServiceProtocol

struct KeySlots: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key-slots",
        abstract: "Manage the key slots of a cofferd collection: passwords, a systemd credential, a recovery key.",
        discussion: """
            Each slot opens the same collection: its password, a key sealed with systemd-creds that cofferd's unit \
            loads at start (LoadCredentialEncrypted=), or a recovery key printed once. Adding or removing a slot \
            asks for a secret that opens an existing one: a password, or with --recovery-key a recovery key.

            Every slot opens everything. A credential sealed with the host key opens the collection for anyone who \
            is root on this machine or holds its disk and host key; one sealed with a TPM2 does not leave the \
            machine; a recovery key opens it for whoever reads the paper. A password change keeps the master key \
            when slots whose keys cofferd does not hold (a recovery key) would otherwise be shut out, and says so.
            """,
        subcommands: [ListKeySlots.self, AddKeySlot.self, RemoveKeySlot.self, UnlockWithRecoveryKey.self])
}

/// The options every key-slot verb shares.
struct KeySlotTarget: ParsableArguments {
    @Argument(help: ArgumentHelp("The collection: alias, label, id or object path.", valueName: "collection"))
    var collection: String
}

/// Reads the secret that authorises a change: a password, or a recovery key typed in its printed form.
struct CurrentSecret: ParsableArguments {
    @Flag(help: "Authorise with a recovery key instead of a password.")
    var recoveryKey = false

    func read() throws -> SecretBytes {
        guard recoveryKey else { return try SecretInput.read(prompt: "Current password: ", piped: .firstLine) }
        return try UnlockWithRecoveryKey.readRecoveryKey()
    }
}

struct ListKeySlots: CofferCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List a collection's key slots.")

    @OptionGroup var target: KeySlotTarget
    @OptionGroup var output: OutputOptions

    func execute() async throws {
        try await ProviderConnection.with { service in
            let slots = try await service.keySlots(of: try await service.resolveCollection(target.collection))
            if output.json { return try JSONOutput.print(slots) }
            for slot in slots { Console.print("\(slot.slot)\t\(slot.kind)") }
        }
    }
}

struct AddKeySlot: CofferCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Add a key slot: password, systemd-credential or recovery.",
        discussion: """
            The current password is read first (a prompt, or the first line of stdin); a new password then (twice \
            on a terminal, or the second line of stdin). systemd-credential makes a random 32-byte key, seals it \
            with `systemd-creds encrypt --name=coffer-COLLECTION` (as root on systemd 252; `--creds-option=--user` \
            from systemd 256), adds the slot, and prints the LoadCredentialEncrypted= line for cofferd.service \
            (written as a drop-in with --install-drop-in). recovery makes a random key and prints it once: write \
            it down, it is not stored anywhere.
            """)

    enum Kind: String, ExpressibleByArgument, CaseIterable {
        case password
        case systemdCredential = "systemd-credential"
        case recovery
    }

    @OptionGroup var target: KeySlotTarget
    @Argument(help: ArgumentHelp("The kind of slot.", valueName: "kind"))
    var kind: Kind
    @OptionGroup var current: CurrentSecret
    @Option(help: ArgumentHelp("Where to write the encrypted credential (default: $XDG_CONFIG_HOME/coffer/credentials/coffer-COLLECTION.cred).", valueName: "path"))
    var credentialFile: String?
    @Option(name: .customLong("creds-option"), parsing: .singleValue,
            help: ArgumentHelp("An option passed to systemd-creds encrypt, such as --with-key=tpm2 or --user; repeatable.", valueName: "option"))
    var credsOptions: [String] = []
    @Flag(help: "Also write the drop-in $XDG_CONFIG_HOME/systemd/user/cofferd.service.d/coffer-COLLECTION.conf.")
    var installDropIn = false
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if kind != .systemdCredential && (credentialFile != nil || !credsOptions.isEmpty || installDropIn) {
            throw ValidationError("--credential-file, --creds-option and --install-drop-in apply to systemd-credential")
        }
        if let credentialFile, !credentialFile.hasPrefix("/") {
            throw ValidationError("--credential-file must be an absolute path (systemd reads it from the unit)")
        }
    }

    func execute() async throws {
        try await ProviderConnection.with { service in
            let path = try await service.resolveCollection(target.collection)
            let id = CollectionReference(path: path).id
            switch kind {
            case .password:
                let (old, new) = try readPasswords()
                let slot = try await add(service, path, old, "password", new)
                report(["slot": "\(slot)"], "added password slot \(slot)")
            case .recovery:
                let old = try current.read()
                let key = try RecoveryKey.generate()
                let slot = try await add(service, path, old, "recovery", key)
                if output.json {
                    // The key goes to stdout only once either way; as JSON it is a field scripts can pick up.
                    let text = try RecoveryKey.encode(key)
                    try JSONOutput.print(["slot": "\(slot)",
                                          "recoveryKey": String(decoding: text.copyBytes(), as: UTF8.self)])
                } else {
                    Console.error("added recovery slot \(slot); write this key down, it is shown only now:")
                    try RecoveryKey.print(key)
                }
            case .systemdCredential:
                try await addCredential(service, path, id)
            }
        }
    }

    private func addCredential(_ service: SecretService, _ path: ObjectPath, _ id: String) async throws {
        let old = try current.read()
        guard let file = credentialFile ?? SystemdCredential.defaultPath(for: id) else {
            throw CofferError.badArguments("no HOME or XDG_CONFIG_HOME: pass --credential-file")
        }
        let key = try SecureRandom.secretBytes(count: 32)
        // Sealed first: if systemd-creds cannot (no root on systemd 252, no TPM for --with-key=tpm2), the
        // collection is left as it was instead of gaining a slot whose key is already gone.
        try SystemdCredential.encrypt(key, name: SystemdCredential.name(of: id), to: file, options: credsOptions)
        let slot: UInt32
        do {
            slot = try await add(service, path, old, "systemd-credential", key)
        } catch {
            unlink(file)
            throw error
        }
        let line = SystemdCredential.unitLine(collection: id, path: file)
        var dropIn: String?
        if installDropIn {
            dropIn = SystemdCredential.dropInPath(for: id)
            guard let dropIn else { throw CofferError.badArguments("no HOME or XDG_CONFIG_HOME for the drop-in") }
            try SystemdCredential.installDropIn(at: dropIn, collection: id, credential: file)
        }
        if output.json {
            try JSONOutput.print(["slot": "\(slot)", "credential": file, "unitLine": line, "dropIn": dropIn ?? ""])
            return
        }
        Console.print("added systemd-credential slot \(slot); the encrypted key is \(file)")
        if let dropIn {
            Console.print("wrote \(dropIn); run `systemctl --user daemon-reload` and restart cofferd.service")
        } else {
            Console.print("add to cofferd.service (`systemctl --user edit cofferd.service`), under [Service]:")
            Console.print(line)
        }
    }

    private func add(_ service: SecretService, _ path: ObjectPath, _ current: SecretBytes, _ kind: String,
                     _ key: SecretBytes) async throws -> UInt32 {
        do {
            return try await service.addKeySlot(to: path, current: current, kind: kind, key: key)
        } catch SecretServiceError.denied {
            throw CofferError(.authenticationFailed, "the current password or key opens no slot of this collection")
        }
    }

    private func report(_ json: [String: String], _ text: String) {
        if output.json { try? JSONOutput.print(json) } else { Console.print(text) }
    }

    private func readPasswords() throws -> (SecretBytes, SecretBytes) {
        if Console.isTerminal(STDIN_FILENO) {
            let old = try current.read()
            return (old, try SecretInput.readNewPassword(prompt: "New password: ", confirmation: "Retype new password: "))
        }
        // From a pipe both come from one read of stdin: the current secret's line, then the new password's.
        let lines = try SecretInput.readPasswords(prompts: ["Current password: ", "New password: "])
        return (current.recoveryKey ? try UnlockWithRecoveryKey.decodeRecoveryKey(lines[0]) : lines[0], lines[1])
    }
}

struct RemoveKeySlot: CofferCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove a key slot by its number (the last slot is refused).",
        discussion: """
            The file is written anew without the slot. When cofferd holds the keys of every remaining slot it also \
            replaces the master key, so a copy of the file taken earlier opens nothing written afterwards with the \
            removed key; otherwise it says which slots kept the old master key.
            """)

    @OptionGroup var target: KeySlotTarget
    @Argument(help: ArgumentHelp("The slot number, as `coffer key-slots list` shows it.", valueName: "slot"))
    var slot: UInt32
    @OptionGroup var current: CurrentSecret
    @OptionGroup var output: OutputOptions

    func execute() async throws {
        try await ProviderConnection.with { service in
            let path = try await service.resolveCollection(target.collection)
            let secret = try current.read()
            let result: (rekeyed: Bool, unchanged: [UInt32])
            do {
                result = try await service.removeKeySlot(slot, from: path, current: secret)
            } catch SecretServiceError.denied {
                throw CofferError(.authenticationFailed, "the current password or key opens no slot of this collection")
            }
            if output.json {
                struct Removed: Encodable { var removed: UInt32; var rekeyed: Bool; var unchanged: [UInt32] }
                return try JSONOutput.print(Removed(removed: slot, rekeyed: result.rekeyed, unchanged: result.unchanged))
            }
            if result.rekeyed {
                Console.print("removed slot \(slot); the master key was replaced")
            } else {
                let kept = result.unchanged.map(String.init).joined(separator: ", ")
                Console.print("removed slot \(slot); the master key was kept because cofferd does not hold the keys "
                    + "of slot(s) \(kept): a copy of the file made before still opens with the removed key")
            }
        }
    }
}

struct UnlockWithRecoveryKey: CofferCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock", abstract: "Unlock a collection with its recovery key (or check the key, if unlocked).",
        discussion: "The key is read at a prompt that does not echo, or as the first line of stdin; case, spaces "
            + "and dashes do not matter.")

    @OptionGroup var target: KeySlotTarget

    /// Reads a typed recovery key and decodes it.
    static func readRecoveryKey() throws -> SecretBytes {
        try decodeRecoveryKey(try SecretInput.read(prompt: "Recovery key: ", piped: .firstLine))
    }

    /// Decodes a typed recovery key.
    /// - Throws: ``ExitStatus/badArguments`` when `typed` is not one.
    static func decodeRecoveryKey(_ typed: SecretBytes) throws -> SecretBytes {
        guard let key = try RecoveryKey.decode(typed) else {
            throw CofferError.badArguments("that is not a recovery key (\(RecoveryKey.characterCount) letters A-Z "
                + "and digits 2-7, in groups of \(RecoveryKey.groupSize))")
        }
        return key
    }

    func execute() async throws {
        try await ProviderConnection.with { service in
            let path = try await service.resolveCollection(target.collection)
            let key = try Self.readRecoveryKey()
            do {
                try await service.unlock(path, slotKey: key)
            } catch SecretServiceError.denied {
                throw CofferError(.authenticationFailed, "the recovery key opens no slot of this collection")
            }
        }
    }
}
