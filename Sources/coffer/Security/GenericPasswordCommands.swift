// SPDX-License-Identifier: Apache-2.0
// security(1)'s add-, find- and delete-generic-password.

import ArgumentParser
import Foundation
import CofferKeychain

struct AddGenericPassword: CofferCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-generic-password", abstract: "Add a generic password item (security(1) compatible).",
        discussion: "Give -w last, or leave the password out, to type it at a prompt that does not echo or to pipe "
            + "it on stdin. -A and -T are accepted for compatibility and ignored: the Secret Service has no "
            + "per-application access lists.")

    @OptionGroup var common: CommonItemOptions
    @OptionGroup var generic: GenericItemOptions
    @OptionGroup var value: PasswordValueOptions
    @Option(name: .customShort("p"), help: ArgumentHelp("Same as -w (security's legacy form).", valueName: "password"))
    var legacyPassword: String?
    @OptionGroup var adding: AddItemOptions
    @OptionGroup var group: AccessGroupOption
    @OptionGroup var output: OutputOptions
    @OptionGroup var keychain: KeychainArguments

    func execute() async throws {
        guard common.account != nil, generic.service != nil else {
            throw CofferError.badArguments("add-generic-password needs -a account and -s service")
        }
        try await keychain.validate(adding: true)
        var attributes = try common.attributes().merging(generic.attributes()) { $1 }
        if common.label == nil { attributes[kSecAttrLabel as String] = generic.service }  // security's default label
        let data = try value.read(prompt: "password data for new item: ", legacy: legacyPassword)
        let primaryKey = [kSecAttrAccount as String: common.account as Any, kSecAttrService as String: generic.service as Any]
        try await PasswordItemStore(accessGroup: group.accessGroup).add(
            kSecClassGenericPassword, attributes: attributes, primaryKey: primaryKey, data: data, update: adding.update)
        if output.json { try JSONOutput.acknowledge(["class": "genp"]) }
    }
}

struct FindGenericPassword: CofferCommand {
    static let configuration = CommandConfiguration(
        commandName: "find-generic-password",
        abstract: "Find a generic password item and print its attributes (security(1) compatible).")

    @OptionGroup var common: CommonItemOptions
    @OptionGroup var generic: GenericItemOptions
    @OptionGroup var show: FindOutputOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var keychain: KeychainArguments

    func execute() async throws {
        try await keychain.validate(adding: false)
        let attributes = try common.attributes().merging(generic.attributes()) { $1 }
        try await PasswordFinder.find(kSecClassGenericPassword, attributes: attributes, show: show, json: output.json)
    }
}

struct DeleteGenericPassword: CofferCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-generic-password",
        abstract: "Delete the first matching generic password item (security(1) compatible).")

    @OptionGroup var common: CommonItemOptions
    @OptionGroup var generic: GenericItemOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var keychain: KeychainArguments

    func execute() async throws {
        try await keychain.validate(adding: false)
        let attributes = try common.attributes().merging(generic.attributes()) { $1 }
        try await PasswordFinder.delete(kSecClassGenericPassword, attributes: attributes, json: output.json)
    }
}

/// What the find and delete verbs of both classes share.
enum PasswordFinder {
    static func find(_ itemClass: CFString, attributes: [String: Any], show: FindOutputOptions, json: Bool)
        async throws {
        let wantsData = show.showPassword || show.passwordOnly
        guard let item = try await PasswordItemStore(accessGroup: nil)
            .find(itemClass, attributes: attributes, all: false, withData: wantsData,
                  includeForeign: show.includeForeign).first
        else { throw KeychainStatusError(status: errSecItemNotFound, operation: "SecKeychainSearchCopyNext") }
        if json {
            try JSONOutput.print(PasswordItemPrinter.json(item, includePassword: wantsData))
        } else if show.passwordOnly {
            let data = item.data ?? Data()
            data.withUnsafeBytes { Console.write(bytes: $0) }
            Console.write("\n")
        } else {
            Console.print(PasswordItemPrinter.text(item))
            if show.showPassword {
                Console.write(PasswordItemPrinter.passwordLine(item.data ?? Data()) + "\n", to: STDERR_FILENO)
            }
        }
    }

    static func delete(_ itemClass: CFString, attributes: [String: Any], json: Bool) async throws {
        guard !attributes.isEmpty else {
            throw CofferError.badArguments("give at least one attribute to select the item to delete")
        }
        let item = try await PasswordItemStore(accessGroup: nil).deleteFirst(itemClass, attributes: attributes)
        if json {
            try JSONOutput.print(PasswordItemPrinter.json(item, includePassword: false))
        } else {
            Console.print(PasswordItemPrinter.text(item))
            Console.print("password has been deleted.")
        }
    }
}
