// SPDX-License-Identifier: Apache-2.0
// The optional trailing keychain arguments of security(1)'s item verbs, checked against the provider.

import ArgumentParser
import SecretServiceClient

/// security's `[keychain...]`: here a collection (alias, label, id or path). Items are always added to the
/// default collection (the SecItem model), and searches cover every collection, so a keychain argument must name
/// an existing collection and, for adding, the default one.
struct KeychainArguments: ParsableArguments {
    @Argument(help: ArgumentHelp(
        "A keychain (collection): alias, label, id or object path. Items are added to the default collection; "
            + "searches cover all collections.", valueName: "keychain"))
    var keychains: [String] = []

    /// Checks that every named keychain exists (and, when `adding`, is the default collection).
    func validate(adding: Bool) async throws {
        guard !keychains.isEmpty else { return }
        try await ProviderConnection.with { service in
            let defaultPath = try await service.defaultCollectionPath()
            for name in keychains {
                let path = try await service.resolveCollection(name)
                if adding, path != defaultPath {
                    throw CofferError(.unsupported, "items can only be added to the default keychain; "
                        + "'\(name)' is not it (use `coffer store --collection` or `coffer default-keychain -s`)")
                }
            }
        }
    }
}
