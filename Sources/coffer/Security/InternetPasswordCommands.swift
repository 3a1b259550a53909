// SPDX-License-Identifier: Apache-2.0
// security(1)'s add-, find- and delete-internet-password.

import ArgumentParser
import Foundation
import CofferKeychain

struct AddInternetPassword: CofferCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-internet-password", abstract: "Add an internet password item (security(1) compatible).",
        discussion: "Give -w last, or leave the password out, to type it at a prompt that does not echo or to pipe "
            + "it on stdin. -A and -T are accepted for compatibility and ignored.")

    @OptionGroup var common: CommonItemOptions
    @OptionGroup var internet: InternetItemOptions
    @OptionGroup var value: PasswordValueOptions
    @OptionGroup var adding: AddItemOptions
    @OptionGroup var group: AccessGroupOption
    @OptionGroup var output: OutputOptions
    @OptionGroup var keychain: KeychainArguments

    func execute() async throws {
        guard common.account != nil, internet.server != nil else {
            throw CofferError.badArguments("add-internet-password needs -a account and -s server")
        }
        try await keychain.validate(adding: true)
        var attributes = try common.attributes().merging(try internet.attributes()) { $1 }
        if common.label == nil { attributes[kSecAttrLabel as String] = internet.server }
        let data = try value.read(prompt: "password data for new item: ")
        var primaryKey: [String: Any] = [:]
        for key in PasswordItemStore.primaryKeys(kSecClassInternetPassword) {
            if let value = attributes[key] { primaryKey[key] = value }
        }
        try await PasswordItemStore(accessGroup: group.accessGroup).add(
            kSecClassInternetPassword, attributes: attributes, primaryKey: primaryKey, data: data, update: adding.update)
        if output.json { try JSONOutput.acknowledge(["class": "inet"]) }
    }
}

struct FindInternetPassword: CofferCommand {
    static let configuration = CommandConfiguration(
        commandName: "find-internet-password",
        abstract: "Find an internet password item and print its attributes (security(1) compatible).")

    @OptionGroup var common: CommonItemOptions
    @OptionGroup var internet: InternetItemOptions
    @OptionGroup var show: FindOutputOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var keychain: KeychainArguments

    func execute() async throws {
        try await keychain.validate(adding: false)
        let attributes = try common.attributes().merging(try internet.attributes()) { $1 }
        try await PasswordFinder.find(kSecClassInternetPassword, attributes: attributes, show: show, json: output.json)
    }
}

struct DeleteInternetPassword: CofferCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-internet-password",
        abstract: "Delete the first matching internet password item (security(1) compatible).")

    @OptionGroup var common: CommonItemOptions
    @OptionGroup var internet: InternetItemOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var keychain: KeychainArguments

    func execute() async throws {
        try await keychain.validate(adding: false)
        let attributes = try common.attributes().merging(try internet.attributes()) { $1 }
        try await PasswordFinder.delete(kSecClassInternetPassword, attributes: attributes, json: output.json)
    }
}
