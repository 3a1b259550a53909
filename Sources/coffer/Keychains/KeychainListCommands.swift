// SPDX-License-Identifier: Apache-2.0
// security(1)'s list-keychains, default-keychain, create-keychain and delete-keychain, over collections.

import ArgumentParser
import DBusWire
import SecretServiceClient
import SecretCrypto
import SecretServiceProtocol

/// security's `-d user|system|common|dynamic`: only the user domain exists on a Secret Service.
struct PreferenceDomainOption: ParsableArguments {
    @Option(name: .customShort("d"), help: ArgumentHelp("The preference domain; only 'user' exists here.", valueName: "domain"))
    var domain: String?

    /// Refuses the domains that do not exist (checked in `execute()`, so the failure gets its own status).
    func check() throws {
        if let domain, domain != "user", domain != "dynamic" {
            throw CofferError(.unsupported, "the '\(domain)' domain does not exist on a Secret Service; use 'user'")
        }
    }
}

struct ListKeychains: CofferCommand {
    static let configuration = CommandConfiguration(
        commandName: "list-keychains", abstract: "List the keychains (collections) (security(1) compatible).",
        discussion: "One quoted object path per line, as security prints keychain paths; --json adds labels, "
            + "lock state, item counts and aliases.")

    @OptionGroup var domain: PreferenceDomainOption
    @Flag(name: .customShort("s"), help: "Not supported: the provider decides which collections exist.")
    var setSearchList = false
    @OptionGroup var output: OutputOptions

    func execute() async throws {
        try domain.check()
        if setSearchList {
            throw CofferError(.unsupported, "the search list cannot be set: every collection is always searched")
        }
        try await ProviderConnection.with { service in
            let summaries = try await service.collectionSummaries()
            if output.json { return try JSONOutput.print(summaries) }
            for summary in summaries { Console.print("    \"\(summary.path)\"") }
        }
    }
}

struct DefaultKeychain: CofferCommand {
    static let configuration = CommandConfiguration(
        commandName: "default-keychain", abstract: "Show or set the default keychain (security(1) compatible).",
        discussion: "With -s KEYCHAIN the 'default' alias is pointed at that collection.")

    @OptionGroup var domain: PreferenceDomainOption
    @Option(name: .customShort("s"), help: ArgumentHelp("Make this collection the default.", valueName: "keychain"))
    var newDefault: String?
    @OptionGroup var output: OutputOptions

    func execute() async throws {
        try domain.check()
        try await ProviderConnection.with { service in
            if let newDefault {
                let path = try await service.resolveCollection(newDefault)
                try await service.setAlias(SecretServiceNames.defaultAlias, to: path)
                if output.json { try JSONOutput.print(["default": path.rawValue]) }
                return
            }
            guard let path = try await service.defaultCollectionPath() else {
                throw CofferError(.noSuchKeychain, "A default keychain could not be found.")
            }
            if output.json { return try JSONOutput.print(["default": path.rawValue]) }
            Console.print("    \"\(path.rawValue)\"")
        }
    }
}

struct CreateKeychain: CofferCommand {
    static let configuration = CommandConfiguration(
        commandName: "create-keychain", abstract: "Create keychains (collections) (security(1) compatible).",
        discussion: "The password is read at a prompt that does not echo (twice), or as the first line of stdin. "
            + "With -P the provider asks for it in its own dialogue instead. A name that already names a keychain "
            + "(its label, id or an alias) is refused with status 48 before anything is created or asked.")

    @Flag(name: .customShort("P"), help: "Let the provider prompt for the password.")
    var providerPrompt = false
    @Option(name: .customShort("p"), help: ArgumentHelp(
        "The password (visible to other processes; prefer the prompt or stdin).", valueName: "password"))
    var password: String?
    @OptionGroup var output: OutputOptions
    @Argument(help: ArgumentHelp("The new collections' labels.", valueName: "keychain"))
    var keychains: [String]

    func execute() async throws {
        guard !keychains.isEmpty else { throw CofferError.badArguments("name at least one keychain to create") }
        try await ProviderConnection.with { service in
            try await service.refuseExisting(keychains)
            var created: [String] = []
            for name in keychains {
                let label = SecretService.keychainStem(name)
                let path: ObjectPath
                if providerPrompt {
                    path = try await service.createCollection(label: label)
                } else {
                    let secret = try password.map { try SecretInput.fromArgv($0, "-p") } ?? SecretInput.readNewPassword(
                        prompt: "password for new keychain: ", confirmation: "retype password for new keychain: ")
                    path = try await service.createCollection(label: label, password: secret)
                }
                created.append(path.rawValue)
            }
            if output.json { try JSONOutput.print(["created": created]) }
        }
    }
}

struct DeleteKeychain: CofferCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-keychain", abstract: "Delete keychains (collections) and every item in them.")

    @OptionGroup var output: OutputOptions
    @Argument(help: ArgumentHelp("Collections: alias, label, id or object path.", valueName: "keychain"))
    var keychains: [String]

    func execute() async throws {
        guard !keychains.isEmpty else { throw CofferError.badArguments("name at least one keychain to delete") }
        try await ProviderConnection.with { service in
            var deleted: [String] = []
            for name in keychains {
                let path = try await service.resolveCollection(name)
                try await service.deleteCollection(path)
                deleted.append(path.rawValue)
            }
            if output.json { try JSONOutput.print(["deleted": deleted]) }
        }
    }
}

extension SecretService {
    /// Throws unless every name is new: not a label, id or alias of an existing collection, and not given twice.
    /// Providers accept several collections with one label, but then every command that names one by label would
    /// pick one of them at random.
    /// - Throws: ``CofferError`` with ``ExitStatus/duplicateKeychain``.
    func refuseExisting(_ names: [String]) async throws {
        var seen: Set<String> = []
        for name in names {
            let label = Self.keychainStem(name)
            if !seen.insert(label).inserted {
                throw CofferError(.duplicateKeychain, "'\(label)' is named twice; each keychain needs its own name")
            }
            let existing: ObjectPath
            do {
                existing = try await resolveCollection(name)
            } catch let error as CofferError where error.status == .noSuchKeychain {
                continue
            }
            throw CofferError(.duplicateKeychain,
                              "a keychain named '\(label)' already exists (\(existing.rawValue)); nothing was created")
        }
    }
}
